//! A hint to the processor to start loading an item it is about to read, so that the wait for
//! memory overlaps work: `process` meets most events cold (enqueued long before), and `hookcheck
//! run` applies operations that another core has just written.

/// Starts loading `item` into the cache; nothing else happens, whatever the processor.
#[inline]
pub(crate) fn prefetch<T>(item: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = item {
        let at: *const i8 = (item as *const T).cast();
        // SAFETY: a prefetch only hints at the cache. It reads nothing into the program, never
        // faults, and `_mm_prefetch` needs SSE, which every x86_64 processor has.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
