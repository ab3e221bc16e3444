//! The core's stateful objects (a `Minter`, a `LeasedMinter`, a `Keeper`) as
//! `long` handles a Java object owns: boxed here, freed once by the owner's
//! `Cleaner` when the owner is unreachable. Java keeps the owner reachable
//! across every call that passes its handle (`Reference.reachabilityFence`), so
//! a handle is live for the whole of the call, and only `Native` (package-
//! private) ever sees one.

use jni::sys::jlong;

/// Boxes `value`; the handle is never 0.
pub fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(value)) as jlong
}

/// The object behind a handle.
///
/// # Safety
/// `handle` came from [`into_handle::<T>`] and has not been freed.
pub unsafe fn borrow<'a, T>(handle: jlong) -> &'a T {
    // SAFETY: the caller's promise: a live box of a `T`.
    unsafe { &*(handle as *const T) }
}

/// The object behind a handle, to change it.
///
/// # Safety
/// As [`borrow`], and no other reference to it is alive (the Java owner
/// serialises its calls).
pub unsafe fn borrow_mut<'a, T>(handle: jlong) -> &'a mut T {
    // SAFETY: the caller's promise: a live box of a `T`, used by one call at a time.
    unsafe { &mut *(handle as *mut T) }
}

/// Frees the object behind a handle.
///
/// # Safety
/// `handle` came from [`into_handle::<T>`] and is freed once (the owner's
/// Cleaner runs once, after the owner's last call).
pub unsafe fn free<T>(handle: jlong) {
    // SAFETY: the caller's promise: a live box of a `T`, never used again.
    drop(unsafe { Box::from_raw(handle as *mut T) });
}
