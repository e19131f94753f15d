//! Every `unsafe` block of the workspace, in one module to audit: the memory
//! of the tables ([`Buffer`]) and the prefetch hint ([`prefetch`]) here;
//! in its child `cpu`, the code for particular instructions: the sectored
//! lookup's test with AVX2 and AVX-512 ([`SectorTest`]), the AES
//! instructions of [`AesCmac`](crate::AesCmac) ([`AesNi`]), and the
//! `popcnt` and BMI2 instructions of rank and select ([`BitOps`]).
//!
//! The rest of bloomlab-core denies `unsafe_code` and every other crate
//! forbids it. Each block states why it is sound in a `SAFETY:` comment;
//! the tests at the end of each file exercise each path at sizes Miri can
//! run (Miri takes the heap path: it does not model `mmap`).
#![allow(unsafe_code)]

use std::alloc::{self as std_alloc, Layout};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use bytemuck::Zeroable;

mod cpu;

pub(crate) use cpu::AesNi;
pub use cpu::{BitOps, Routine, SectorTest};

/// The size of a transparent huge page on x86-64 and on AArch64 with 4 KiB
/// pages: tables of at least this many bytes are mapped on a boundary of it.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// Every buffer starts on a 64-byte cache line, so that a block of 64 bytes
/// at a multiple of 64 is one line.
const LINE: usize = 64;

/// A fixed-length table of `T`s, all zero when made, that owns its memory.
///
/// Small tables come from the global allocator, aligned to a cache line.
/// On Linux, a table of [`HUGE_PAGE_BYTES`](crate::alloc::HUGE_PAGE_BYTES)
/// or more is an anonymous mapping of its own: its pages are the kernel's
/// zero pages until written (so a
/// large table costs nothing until it is filled), and with huge pages asked
/// for it starts on a 2 MiB boundary and is marked `MADV_HUGEPAGE`, so that
/// the kernel can back it with transparent huge pages (`MADV_NOHUGEPAGE`
/// when they are not asked for, so that "off" means off on a system whose
/// default is `always`).
pub struct Buffer<T> {
    ptr: NonNull<T>,
    len: usize,
    memory: Memory,
}

/// Where a [`Buffer`]'s memory came from, so that it goes back there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// No memory: an empty buffer (or one of zero-sized values).
    None,
    /// The global allocator, with this layout.
    Heap(Layout),
    /// An anonymous mapping of `bytes` bytes (whole pages); `huge` if the
    /// kernel accepted the advice to use huge pages for it.
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped { bytes: usize, huge: bool },
}

// SAFETY: a `Buffer<T>` owns its `T`s as a `Vec<T>` does (the pointer is to
// memory no other value refers to), so sending it to another thread, or
// sharing references to it, is as safe as doing so with the `T`s.
unsafe impl<T: Send> Send for Buffer<T> {}
// SAFETY: as for `Send`: `&Buffer<T>` gives only `&[T]`.
unsafe impl<T: Sync> Sync for Buffer<T> {}

impl<T: Zeroable> Buffer<T> {
    /// `len` zeroed values; `None` if their size overflows or the memory is
    /// refused. `huge`: ask for huge pages if the table is large enough.
    pub(crate) fn zeroed(len: usize, huge: bool) -> Option<Self> {
        let bytes = size_of::<T>().checked_mul(len)?;
        if bytes == 0 {
            return Some(Self {
                ptr: NonNull::dangling(),
                len,
                memory: Memory::None,
            });
        }
        #[cfg(all(target_os = "linux", not(miri)))]
        if bytes >= HUGE_PAGE {
            let (ptr, bytes, huge) = map(bytes, huge)?;
            return Some(Self {
                ptr: ptr.cast(),
                len,
                memory: Memory::Mapped { bytes, huge },
            });
        }
        let _ = huge;
        let layout = Layout::from_size_align(bytes, align_of::<T>().max(LINE)).ok()?;
        // SAFETY: the layout's size is not zero (checked above), as
        // `alloc_zeroed` requires.
        let ptr = unsafe { std_alloc::alloc_zeroed(layout) };
        Some(Self {
            ptr: NonNull::new(ptr)?.cast(),
            len,
            memory: Memory::Heap(layout),
        })
    }

    /// A copy of `values` in a buffer of its own, or `None` as for
    /// [`zeroed`](Self::zeroed).
    pub(crate) fn copied(values: &[T], huge: bool) -> Option<Self>
    where
        T: Copy,
    {
        let mut buffer = Self::zeroed(values.len(), huge)?;
        buffer.copy_from_slice(values);
        Some(buffer)
    }
}

impl<T> Buffer<T> {
    /// Whether the kernel took the advice to back this buffer with huge
    /// pages (only ever for a table of 2 MiB or more, on Linux, with huge
    /// pages on: see [`set_huge_pages`](crate::alloc::set_huge_pages)).
    /// Whether it could find them is the kernel's business: `AnonHugePages`
    /// in `/proc/self/smaps` tells.
    pub fn huge_pages(&self) -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if let Memory::Mapped { huge, .. } = self.memory {
            return huge;
        }
        false
    }
}

impl Buffer<u64> {
    /// The same words, to be written by atomic operations, without copying.
    pub fn into_atomic(self) -> Buffer<AtomicU64> {
        let this = std::mem::ManuallyDrop::new(self);
        // `AtomicU64` has the size and bit validity of `u64` (its
        // documentation guarantees both), and the buffer is aligned to 64
        // bytes, more than either type needs: the same memory holds the
        // same values as the other type, and ownership moves with it.
        Buffer {
            ptr: this.ptr.cast(),
            len: this.len,
            memory: this.memory,
        }
    }
}

impl Buffer<AtomicU64> {
    /// The same words as plain ones, without copying: the reverse of
    /// [`Buffer::into_atomic`], sound for the same reasons (and `self` is
    /// owned, so no other thread can be writing).
    pub fn into_plain(self) -> Buffer<u64> {
        let this = std::mem::ManuallyDrop::new(self);
        Buffer {
            ptr: this.ptr.cast(),
            len: this.len,
            memory: this.memory,
        }
    }
}

/// An anonymous, private, read-write mapping of at least `bytes` bytes:
/// its start, its length in whole pages, and whether huge pages were
/// accepted. `huge` asks for a 2 MiB aligned start and `MADV_HUGEPAGE`.
#[cfg(all(target_os = "linux", not(miri)))]
fn map(bytes: usize, huge: bool) -> Option<(NonNull<u8>, usize, bool)> {
    use libc::{MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE, c_void};

    // SAFETY: `sysconf` only reads a configuration value.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|p| p.is_power_of_two())?;
    let length = bytes.checked_next_multiple_of(page)?;
    let align = if huge { HUGE_PAGE.max(page) } else { page };
    // Room to move the start to the next multiple of `align`.
    let span = length.checked_add(align - page)?;
    // SAFETY: a new mapping at an address the kernel chooses: it overlaps
    // no memory the program uses, and its pages read as zero.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == MAP_FAILED {
        return None;
    }
    let start = base as usize;
    let aligned = start.next_multiple_of(align);
    let head = aligned - start;
    let tail = span - head - length;
    // SAFETY: the head and the tail are whole pages of the mapping just
    // made (`start`, `aligned` and `length` are multiples of the page size),
    // outside the `length` bytes kept, and nothing refers to them. A failed
    // unmapping would only leave them mapped and unused.
    unsafe {
        if head > 0 {
            libc::munmap(base, head);
        }
        if tail > 0 {
            libc::munmap((aligned + length) as *mut c_void, tail);
        }
    }
    let advice = if huge {
        libc::MADV_HUGEPAGE
    } else {
        libc::MADV_NOHUGEPAGE
    };
    // SAFETY: advice about the pages of this mapping, which changes how the
    // kernel backs them, never what they hold. It fails (EINVAL) on a kernel
    // without transparent huge pages, which is then simply not used.
    let advised = unsafe { libc::madvise(aligned as *mut c_void, length, advice) } == 0;
    Some((NonNull::new(aligned as *mut u8)?, length, huge && advised))
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // The values are plain integers (the `Zeroable` types the buffer is
        // made of): nothing to drop but the memory.
        match self.memory {
            Memory::None => {}
            // SAFETY: the memory came from `alloc_zeroed` with this layout
            // and is freed once, here.
            Memory::Heap(layout) => unsafe { std_alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
            // SAFETY: the mapping of `bytes` bytes made by `map`, unmapped
            // once, here; nothing refers to it after the buffer is gone.
            #[cfg(all(target_os = "linux", not(miri)))]
            Memory::Mapped { bytes, .. } => unsafe {
                libc::munmap(self.ptr.as_ptr().cast(), bytes);
            },
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` is aligned for `T` and points to `len` values that
        // were zeroed (a valid `T`: `Zeroable`) or written since, owned by
        // this buffer and alive while it is borrowed.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for Buffer<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<'a, T> IntoIterator for &'a Buffer<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Buffer<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: Zeroable + Copy> Clone for Buffer<T> {
    /// A copy in memory of its own, with huge pages as the original has.
    ///
    /// # Panics
    ///
    /// Aborts, as `Vec::clone` does, if the allocator refuses the copy.
    fn clone(&self) -> Self {
        Self::copied(self, self.huge_pages()).unwrap_or_else(|| {
            let layout = Layout::array::<T>(self.len).unwrap_or(Layout::new::<T>());
            std_alloc::handle_alloc_error(layout)
        })
    }
}

impl<T: PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Buffer<T> {}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Asks the processor to start loading the cache line that holds `value`,
/// without waiting for it (see [`crate::batch::prefetch`]).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (it
    // is part of the architecture's baseline, and the standard library's
    // x86-64 targets enable it); the instruction never faults and never
    // reads memory into the program, and the pointer comes from a reference,
    // so it is valid in any case.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn small_buffers_are_zero_aligned_and_writable() {
        for len in [0, 1, 7, 8, 1000] {
            let mut b = Buffer::<u64>::zeroed(len, true).unwrap();
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&w| w == 0));
            assert!(!b.huge_pages());
            if len > 0 {
                assert_eq!(b.as_ptr() as usize % LINE, 0);
                b[len - 1] = u64::MAX;
                let c = b.clone();
                assert_eq!(c, b);
                assert_eq!(c[len - 1], u64::MAX);
            }
        }
        let blocks = Buffer::<[u64; 8]>::zeroed(3, false).unwrap();
        assert_eq!(blocks.as_ptr() as usize % LINE, 0);
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(Buffer::<u64>::zeroed(usize::MAX, true).is_none());
        assert!(Buffer::<[u64; 8]>::zeroed(usize::MAX / 64 + 1, false).is_none());
    }

    #[test]
    fn atomic_views_keep_the_values() {
        let mut b = Buffer::<u64>::zeroed(100, false).unwrap();
        b[3] = 0xdead_beef;
        let a = b.into_atomic();
        assert_eq!(a[3].fetch_or(1, Ordering::Relaxed), 0xdead_beef);
        let b = a.into_plain();
        assert_eq!(b[3], 0xdead_beef | 1);
        assert_eq!(b.iter().filter(|&&w| w != 0).count(), 1);
    }

    /// A table of 2 MiB and more is a mapping of its own: on a 2 MiB
    /// boundary when huge pages are asked for, page-aligned when not.
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn large_buffers_are_mappings() {
        let words = HUGE_PAGE / 8 * 3 + 5;
        for huge in [true, false] {
            let mut b = Buffer::<u64>::zeroed(words, huge).unwrap();
            assert!(matches!(b.memory, Memory::Mapped { .. }));
            if huge {
                assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
            } else {
                assert!(!b.huge_pages());
            }
            assert_eq!(b.as_ptr() as usize % 4096, 0);
            assert!(b.iter().step_by(4096).all(|&w| w == 0));
            b[words - 1] = 7;
            b[0] = 9;
            let c = b.clone();
            assert_eq!(c, b);
            assert_eq!(c.huge_pages(), b.huge_pages());
            let a = c.into_atomic();
            assert_eq!(a[words - 1].load(Ordering::Relaxed), 7);
        }
    }
}
