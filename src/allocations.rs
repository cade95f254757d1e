//! The process's allocator, counting each thread's allocations, so every run can show that
//! its measurement threads allocated nothing while measuring (reported in the JSON file).
//!
//! The count is a thread-local integer with a constant initialiser: reading or bumping it
//! never allocates and costs a few instructions per allocation; threads that do not allocate
//! pay nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator plus a per-thread count of allocations and reallocations.
pub struct CountingAllocator;

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the only addition is bumping a thread-local counter, which neither allocates nor
// unwinds (`try_with` fails quietly during thread teardown).
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

/// Allocations (and reallocations) made by the calling thread so far.
pub fn this_thread() -> u64 {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_this_threads_allocations_only() {
        std::thread::spawn(|| {
            let before = super::this_thread();
            let v: Vec<u64> = Vec::with_capacity(10);
            std::hint::black_box(&v);
            assert_eq!(super::this_thread(), before + 1);
            let x = std::hint::black_box(3u64) * 2;
            assert_eq!(
                super::this_thread(),
                before + 1,
                "arithmetic allocates nothing: {x}"
            );
        })
        .join()
        .unwrap();
    }
}
