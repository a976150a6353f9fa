# cmake -DOUT=file.inc -DDIR=dir "-DFILES=a.h;b.h" -P EmbedFiles.cmake
# Writes {"a.h", R"tlc_embed(...)tlc_embed"}, per file: the text of files a
# program carries with it (tlc's runtime headers, for tuning bundles).
set(text "// Generated from ${DIR} by cmake/EmbedFiles.cmake. Do not edit.\n")
foreach(name ${FILES})
  file(READ "${DIR}/${name}" content)
  string(APPEND text "{\"${name}\", R\"tlc_embed(${content})tlc_embed\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
