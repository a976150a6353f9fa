# CPackDebShlibs.cmake - run by cpack (CPACK_PRE_BUILD_SCRIPTS) after it has
# staged the files and before the DEB generator runs dpkg-shlibdeps there.
#
# The tools' RUNPATH (/usr/lib/llvm-22/lib) finds libLLVM.so.22.1 through a
# symlink owned by llvm-22-dev, whose package has no shlibs entry for it, so
# dpkg-shlibdeps drops libllvm22 from Depends (or not: it depends on the
# order it looks at files). debian/shlibs.local, which dpkg-shlibdeps reads
# first, names the package that really provides the library. CPackDeb
# deletes debian/ after running dpkg-shlibdeps; it is not packaged.
if(CPACK_GENERATOR STREQUAL "DEB" AND CPACK_TLC_DEB_SHLIBS_LOCAL)
  file(WRITE "${CPACK_TEMPORARY_DIRECTORY}/debian/shlibs.local"
    "${CPACK_TLC_DEB_SHLIBS_LOCAL}\n")
endif()
