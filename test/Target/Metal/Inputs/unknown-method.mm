// Calls a method the fake SDK does not declare (stubs.test expects an error).
#import <Metal/Metal.h>
void allocate(id<MTLDevice> device, void *host) {
  (void)[device newBufferWithBytesNoCopy:host length:16];
}
