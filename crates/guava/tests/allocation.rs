//! A header may declare up to 2^31 - 1 words (16 GiB); decoding must not
//! allocate for words the input does not hold. A counting allocator records
//! the largest single request while short inputs with huge declared counts
//! are decoded.
//!
//! This file is its own test binary, with one test, so no other test's
//! allocations are counted.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bloomlab_guava::{ByteArrayFunnel, GuavaBloomFilter, ReadError};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The system allocator, recording the largest request.
struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments,
// unchanged, so `System`'s guarantees hold; it only records sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with this `layout`; the caller
        // vouches for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most any decode may ask for at once: the read buffer and a chunk
/// of words (64 KiB each), with room for the test harness's own.
const LIMIT: usize = 1 << 20;

#[test]
fn huge_declared_word_counts_allocate_little() {
    let mut runner = TestRunner::new(Config::with_cases(256));
    let inputs = (
        0u8..2,
        1u8..=255,
        prop_oneof![Just(i32::MAX), 1 << 20..i32::MAX],
        proptest::collection::vec(any::<u8>(), 0..512),
    );
    runner
        .run(&inputs, |(ordinal, k, words, body)| {
            let mut bytes = vec![ordinal, k];
            bytes.extend(words.to_be_bytes());
            bytes.extend(&body);
            LARGEST.store(0, Ordering::Relaxed);
            let whole = GuavaBloomFilter::from_bytes(&bytes, ByteArrayFunnel);
            let streamed = GuavaBloomFilter::read_from(&bytes[..], ByteArrayFunnel);
            let largest = LARGEST.load(Ordering::Relaxed);
            prop_assert!(
                matches!(whole, Err(ReadError::Truncated { .. })),
                "{whole:?}"
            );
            prop_assert!(
                matches!(streamed, Err(ReadError::Truncated { .. })),
                "{streamed:?}"
            );
            prop_assert!(largest <= LIMIT, "asked for {largest} bytes at once");
            Ok(())
        })
        .unwrap();
}
