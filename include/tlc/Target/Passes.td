//===- Passes.td - Passes of the code-generation targets ----*- tablegen -*-===//
#ifndef TLC_TARGET_PASSES_TD
#define TLC_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "mlir::ModuleOp"> {
  let summary = "Set the module's target description (#tile.target)";
  let description = [{
    The tlc driver sets `tile.target` on the module from `-target` and
    `-arch` before the tile passes run; this pass does the same in tlc-opt,
    so each pass can be tested for any target. The description comes from
    the target itself (lib/Target/<vendor>), exactly as in the driver.

    Before:
    ```mlir
    module { ... }
    ```
    After (`target=rocm arch=gfx942`):
    ```mlir
    module attributes {tile.target = #tile.target<vendor = "rocm",
        arch = "gfx942", warp_size = 64, ...>} { ... }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"cuda\"",
           "code-generation target (as tlc -target=)">,
    Option<"arch", "arch", "std::string", "\"\"",
           "architecture (as tlc -arch=; empty: the target's default)">
  ];
  let dependentDialects = ["tlc::tile::TileDialect"];
}

#endif // TLC_TARGET_PASSES_TD
