//! A count that many threads add to at once without writing one shared
//! cache line: [`AtomicBloomFilter`](crate::AtomicBloomFilter)'s `len`.
//!
//! Each thread adds to a stripe of its own (threads take stripes in turn,
//! the first time they add), and a read sums the stripes. With one counter
//! every insert of every thread wrote the same line, which then moved from
//! core to core on each insert: two threads inserted 1.6 times as fast as
//! one, where the table alone allows about 2.

use std::sync::atomic::{AtomicUsize, Ordering};

const ORDER: Ordering = Ordering::Relaxed;

/// The most stripes a count has: more threads than this share them.
const MAX_STRIPES: usize = 64;

/// One counter alone on 128 bytes: two cache lines, since x86 processors
/// fetch lines in adjacent pairs.
#[derive(Default)]
#[repr(align(128))]
struct Stripe(AtomicUsize);

/// A `usize` count made of per-thread stripes; it wraps, as the counter it
/// replaces did.
pub(crate) struct Striped {
    stripes: Box<[Stripe]>,
}

impl Striped {
    /// A count of `value`, with a stripe for each thread the machine runs
    /// at once (rounded up to a power of two, at most [`MAX_STRIPES`]):
    /// 128 bytes each.
    pub(crate) fn new(value: usize) -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let count = threads.next_power_of_two().min(MAX_STRIPES);
        let stripes: Box<[Stripe]> = (0..count).map(|_| Stripe::default()).collect();
        stripes[0].0.store(value, ORDER);
        Self { stripes }
    }

    /// Adds one, on the calling thread's stripe.
    #[inline]
    pub(crate) fn add_one(&self) {
        let i = thread_index() & (self.stripes.len() - 1);
        self.stripes[i].0.fetch_add(1, ORDER);
    }

    /// The sum of the stripes: exact once every adding thread is done (and
    /// joined, or otherwise ordered before the read); while they run, some
    /// value the count passed through or will.
    pub(crate) fn get(&self) -> usize {
        self.stripes
            .iter()
            .fold(0, |sum, s| sum.wrapping_add(s.0.load(ORDER)))
    }

    /// Sets the count to `value` (`&mut`: no thread adds meanwhile).
    pub(crate) fn set(&mut self, value: usize) {
        for (i, s) in self.stripes.iter_mut().enumerate() {
            *s.0.get_mut() = if i == 0 { value } else { 0 };
        }
    }
}

/// This thread's number, from 0 in the order threads first ask for one.
#[inline]
fn thread_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static INDEX: usize = NEXT.fetch_add(1, ORDER);
    }
    INDEX.with(|i| *i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_add_to_one_count() {
        let mut count = Striped::new(5);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| (0..1_000).for_each(|_| count.add_one()));
            }
        });
        assert_eq!(count.get(), 8_005);
        count.set(2);
        count.add_one();
        assert_eq!(count.get(), 3);
    }

    #[test]
    fn the_count_wraps() {
        let count = Striped::new(usize::MAX);
        count.add_one();
        assert_eq!(count.get(), 0);
    }
}
