// The part of Apple's Foundation that tlc_metal.h uses, declared with
// Apple's signatures, so that the Metal stubs and their runtime get a
// syntax and type check with clang on Linux (-fsyntax-only; nothing links).
// Not a Foundation: only declarations.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef signed char BOOL;
typedef unsigned long NSUInteger;
typedef long NSInteger;
#define nil ((id)0)
#define YES ((BOOL)1)
#define NO ((BOOL)0)
#define NS_ENUM(type, name)                                                    \
  enum name : type name;                                                       \
  enum name : type
#define NS_OPTIONS(type, name)                                                 \
  enum name : type name;                                                       \
  enum name : type

@protocol NSObject
- (instancetype)retain;
- (oneway void)release;
- (instancetype)autorelease;
@end

__attribute__((objc_root_class))
@interface NSObject<NSObject>
+ (instancetype)alloc;
+ (instancetype)new;
- (instancetype)init;
@end

typedef NSUInteger NSStringEncoding;
static const NSStringEncoding NSUTF8StringEncoding = 4;

@interface NSString : NSObject
+ (instancetype)stringWithUTF8String:(const char *)nullTerminatedCString;
+ (instancetype)stringWithFormat:(NSString *)format, ...;
- (const char *)UTF8String;
@end

@interface NSNumber : NSObject
+ (NSNumber *)numberWithInt:(int)value;
@end

@interface NSArray<ObjectType> : NSObject
- (NSUInteger)count;
- (ObjectType)objectAtIndex:(NSUInteger)index;
@end

@interface NSDictionary<KeyType, ObjectType> : NSObject
+ (instancetype)dictionaryWithObjects:(const ObjectType[])objects
                              forKeys:(const KeyType[])keys
                                count:(NSUInteger)cnt;
@end

@interface NSError : NSObject
- (NSString *)localizedDescription;
@end
