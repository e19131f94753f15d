//! The code that runs on particular instructions where the processor has
//! them: the sectored lookup's test with AVX2 and AVX-512 ([`SectorTest`]),
//! rank and select with `popcnt` and BMI2 ([`BitOps`]), and AES-128 with
//! AES-NI ([`AesNi`]). Each is chosen once at run time, with portable code
//! beside it; the tests compare the copies.

/// Which code tests a sectored block on this processor
/// ([`cells_set`](Self::cells_set)), chosen once by
/// [`detect`](Self::detect): AVX-512 (its `F` and `VL` parts) where the
/// processor has it, else AVX2, else the portable code. With the crate's
/// feature `portable`, always the portable code.
///
/// A filter keeps one and reads it with its other fields. Asking the
/// standard library on every lookup (`is_x86_feature_detected!`) reads an
/// atomic, which the compiler may not move out of a caller's loop, and with
/// it the loop's other invariant loads (the hash key): about ten more
/// instructions a lookup (callgrind, 3 December: 121 against 111 for a
/// 1M-item `BlockedBloomFilter`; the hash and one line alone are 83).
///
/// ```
/// use bloomlab_core::hash::{SectorTest, sector_masks};
///
/// let test = SectorTest::detect();
/// let block = sector_masks(0x1234_5678, 1);
/// assert!(test.cells_set::<1>(&block, 0x1234_5678));
/// assert!(!test.cells_set::<1>(&[0; 8], 0x1234_5678));
/// assert_eq!(test, SectorTest::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectorTest {
    /// Never names code whose instructions [`detect`](Self::detect) did
    /// not find on this processor: what makes
    /// [`cells_set`](Self::cells_set)'s calls of the vector copies sound.
    /// The field is private to this module, and `detect` is the only way to
    /// make a value outside it.
    code: SectorCode,
}

/// The copies of the sectored test ([`SectorTest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SectorCode {
    /// `sector_cells_set_portable`, for any processor.
    Portable,
    /// `sector_cells_set_avx2`. (Made on x86-64 only.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    /// `sector_cells_set_avx512`. (Made on x86-64 only.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512,
}

impl SectorTest {
    /// The test for the processor running this program (the portable one
    /// under the feature `portable`, whatever the processor has).
    #[inline]
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        let code = if cfg!(feature = "portable") {
            SectorCode::Portable
        } else if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            SectorCode::Avx512
        } else if std::arch::is_x86_feature_detected!("avx2") {
            SectorCode::Avx2
        } else {
            SectorCode::Portable
        };
        #[cfg(not(target_arch = "x86_64"))]
        let code = SectorCode::Portable;
        Self { code }
    }

    /// The code this test runs: `"avx512"`, `"avx2"` or `"portable"`, for
    /// logs, benchmark reports, and tests that check the feature
    /// `portable` took effect.
    ///
    /// ```
    /// use bloomlab_core::hash::SectorTest;
    ///
    /// let name = SectorTest::detect().name();
    /// assert!(["avx512", "avx2", "portable"].contains(&name));
    /// if cfg!(not(target_arch = "x86_64")) {
    ///     assert_eq!(name, "portable");
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self.code {
            SectorCode::Portable => "portable",
            SectorCode::Avx2 => "avx2",
            SectorCode::Avx512 => "avx512",
        }
    }

    /// Whether every cell of the item of hash `hash` in `block` is
    /// non-zero: [`sector_cells_set`](crate::hash::sector_cells_set), by the code this test
    /// was detected for.
    #[inline(always)]
    pub fn cells_set<const CELL_BITS: u32>(
        self,
        block: &[u64; crate::hash::SECTORS],
        hash: u64,
    ) -> bool {
        match self.code {
            // SAFETY: the only requirement of a `target_feature` function
            // is that the processor running it has the features it was
            // compiled for, and `self.code` names this copy only where
            // `detect` found them on this processor (the field is private
            // to this module, and nothing else makes a value). The
            // function's own loads are of its two arrays, in bounds (its
            // SAFETY comment).
            #[cfg(target_arch = "x86_64")]
            SectorCode::Avx512 => unsafe { sector_cells_set_avx512::<CELL_BITS>(block, hash) },
            // SAFETY: as above, for AVX2.
            #[cfg(target_arch = "x86_64")]
            SectorCode::Avx2 => unsafe { sector_cells_set_avx2::<CELL_BITS>(block, hash) },
            _ => sector_cells_set_portable::<CELL_BITS>(block, hash),
        }
    }
}

/// The portable copy, out of line as the vector copies are (a
/// `target_feature` function is never inlined into code compiled without
/// its features): [`SectorTest::cells_set`] is then a few instructions and
/// a call whichever copy it runs, small enough for the compiler to inline
/// a filter's whole lookup into the caller's loop.
#[inline(never)]
fn sector_cells_set_portable<const CELL_BITS: u32>(
    block: &[u64; crate::hash::SECTORS],
    hash: u64,
) -> bool {
    crate::hash::sector_cells_set_portable::<CELL_BITS>(block, hash)
}

impl Default for SectorTest {
    /// [`SectorTest::detect`].
    fn default() -> Self {
        Self::detect()
    }
}

/// How rank and select on 64-bit words run on this processor, chosen once
/// by [`detect`](Self::detect): with x86-64's `popcnt` and BMI2's `pdep`
/// where the processor has them, else with portable code
/// ([`crate::bits::select_portable`]). With the crate's feature `portable`,
/// and under Miri, always the portable code.
///
/// A table keeps one and runs its whole operation through
/// [`run`](Self::run) (a [`Routine`]), so that the operation is compiled once more with
/// those instructions: `u64::count_ones` in it becomes one `popcnt`, and
/// [`select`](Self::select) a `pdep` and a `tzcnt` (about 50 instructions
/// fewer per quotient-filter lookup than the portable code). A copy with
/// the instructions is never inlined into code without them, so the
/// choice is made per operation, not per word.
///
/// ```
/// use bloomlab_core::bits::{BitOps, Routine};
///
/// struct Select(BitOps, u64, u32);
///
/// impl Routine for Select {
///     type Output = Option<u32>;
///     #[inline(always)]
///     fn call(self) -> Option<u32> {
///         self.0.select(self.1, self.2)
///     }
/// }
///
/// let ops = BitOps::detect();
/// assert!(["bmi2", "portable"].contains(&ops.name()));
/// assert_eq!(ops.run(Select(ops, 0b1011_0100, 2)), Some(5));
/// assert_eq!(ops.run(Select(ops, 0b1011_0100, 4)), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitOps {
    /// Set only by [`detect`](Self::detect), where the processor has
    /// `popcnt`, BMI1 and BMI2: what makes [`run`](Self::run)'s and
    /// [`select`](Self::select)'s calls of the `target_feature` code
    /// sound. The field is private to this module.
    fast: bool,
}

impl BitOps {
    /// The instructions of the processor running this program.
    #[inline]
    pub fn detect() -> Self {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        let fast = !cfg!(feature = "portable")
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2");
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        let fast = false;
        Self { fast }
    }

    /// The code this runs: `"bmi2"` or `"portable"`.
    pub fn name(self) -> &'static str {
        if self.fast { "bmi2" } else { "portable" }
    }

    /// `routine`'s result, the routine compiled with `popcnt`, BMI1 and
    /// BMI2 where [`detect`](Self::detect) found them (else as it is).
    #[inline]
    pub fn run<R: Routine>(self, routine: R) -> R::Output {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if self.fast {
            // SAFETY: the only requirement of a `target_feature` function
            // is that the processor running it has the features it was
            // compiled for, and `fast` is true only where `detect` found
            // them on this processor (the field is private to this module,
            // and nothing else makes a value with it set).
            return unsafe { run_bmi2(routine) };
        }
        routine.call()
    }

    /// The position of the `k`-th (from 0) set bit of `w`, if `w` has more
    /// than `k` set bits: one `pdep` under [`run`](Self::run) with the
    /// instructions, [`crate::bits::select_portable`] without.
    #[inline]
    pub fn select(self, w: u64, k: u32) -> Option<u32> {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if self.fast {
            if k >= 64 {
                return None;
            }
            // SAFETY: as in `run`: `fast` means the processor has BMI1 and
            // BMI2; the function reads no memory.
            let at = unsafe { pdep_select(w, k) };
            return (at < 64).then_some(at);
        }
        crate::bits::select_portable(w, k)
    }
}

impl Default for BitOps {
    /// [`BitOps::detect`].
    fn default() -> Self {
        Self::detect()
    }
}

/// Work that [`BitOps::run`] compiles once more with the processor's bit
/// instructions: implement [`call`](Self::call) with `#[inline(always)]`,
/// and the code it calls likewise, so that all of it is compiled into that
/// copy (a closure or a function the compiler declines to inline would be
/// compiled without them).
pub trait Routine {
    /// What the work returns.
    type Output;
    /// Does the work.
    fn call(self) -> Self::Output;
}

/// `routine.call()`, compiled with `popcnt`, BMI1 and BMI2.
///
/// # Safety
///
/// The processor must have `popcnt`, BMI1 and BMI2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
unsafe fn run_bmi2<R: Routine>(routine: R) -> R::Output {
    routine.call()
}

/// The position of the `k`-th set bit of `w` (`k < 64`), 64 when `w` has
/// no more than `k`: the `k`-th bit deposited into `w`'s set bits, then
/// its position.
///
/// # Safety
///
/// The processor must have BMI1 and BMI2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "bmi1,bmi2")]
#[inline]
unsafe fn pdep_select(w: u64, k: u32) -> u32 {
    std::arch::x86_64::_pdep_u64(1 << k, w).trailing_zeros()
}

/// The eight words' shifts, `sector_slot(x, w, slot_bits) * CELL_BITS` for
/// `w` in `0..8`, as eight 32-bit lanes: one multiply by the eight salts,
/// one shift down to the slot, one up to the cell.
///
/// # Safety
///
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sector_shifts<const CELL_BITS: u32>(hash: u64) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::{
        _mm_cvtsi32_si128, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_set1_epi32,
        _mm256_sll_epi32, _mm256_srl_epi32,
    };
    const {
        assert!(CELL_BITS.is_power_of_two() && CELL_BITS <= 32);
    }
    let salts = &crate::hash::SECTOR_SALTS;
    let slot_bits = crate::hash::sector_slot_bits(CELL_BITS);
    // SAFETY: the load reads the eight `u32` salts, 32 bytes wholly inside
    // their array (unaligned access is allowed); the other intrinsics need
    // at most AVX2, which the caller promises.
    unsafe {
        let x = _mm256_set1_epi32(hash as u32 as i32);
        let product = _mm256_mullo_epi32(x, _mm256_loadu_si256(salts.as_ptr().cast()));
        let down = _mm_cvtsi32_si128((32 - slot_bits) as i32);
        let up = _mm_cvtsi32_si128(CELL_BITS.trailing_zeros() as i32);
        _mm256_sll_epi32(_mm256_srl_epi32(product, down), up)
    }
}

/// Each word's cell (all ones) shifted into place by [`sector_shifts`]:
/// words 0 to 3, then 4 to 7.
///
/// # Safety
///
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sector_cells<const CELL_BITS: u32>(hash: u64) -> [std::arch::x86_64::__m256i; 2] {
    use std::arch::x86_64::{
        _mm256_castsi256_si128, _mm256_cvtepu32_epi64, _mm256_extracti128_si256,
        _mm256_set1_epi64x, _mm256_sllv_epi64,
    };
    // SAFETY: no memory is read; the intrinsics need at most AVX2, which
    // the caller promises.
    unsafe {
        let at = sector_shifts::<CELL_BITS>(hash);
        let cell = _mm256_set1_epi64x(crate::hash::cell_ones(CELL_BITS) as i64);
        [
            _mm256_sllv_epi64(cell, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(at))),
            _mm256_sllv_epi64(
                cell,
                _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(at)),
            ),
        ]
    }
}

/// What `sector_cells_set_portable` computes, with AVX2's per-lane 64-bit
/// shifts (`vpsllvq`), which SSE2 lacks: the eight 32-bit products in one
/// 256-bit register, each word's cell shifted into place, and the block
/// read as two halves of four words, each tested against its cells.
/// Seventeen instructions before the return; after the two loads, five wait
/// for the line for one-bit cells (an AND-NOT of each half with its cells,
/// an OR, the test and the set), seven for wider ones (an AND and a compare
/// in place of each AND-NOT).
///
/// Until 5 December this copy used 128-bit registers only (four products to
/// a register, four quarters of the block): about thirty instructions, nine
/// of them waiting for the line. The reason was a measurement on a guest
/// that reported a Zen 4 processor (family 25, model 17): the portable code
/// compiled for AVX2, which the compiler vectorized on 256-bit registers,
/// took 60.8 ns a miss over a 20M-item table where the 128-bit form took
/// 36.1, and the `vzeroupper` the 256-bit registers need at the return was
/// blamed. On 5 December, on a guest reporting the same processor, this
/// hand-written 256-bit form, `vzeroupper` and all, took 42.3 ns a miss
/// over a 1 GiB blocked Bloom filter where the 128-bit one took 52.7 and
/// the hash + 1 line floor 37.9 (a probe's loop over 1M absent keys,
/// medians of nine alternating passes; `benches/FINDINGS.md`): what made
/// the compiler's form slow was not the registers' width. Past the cache,
/// the instructions of a lookup bound how many lookups overlap, so halving
/// them shows.
///
/// # Safety
///
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sector_cells_set_avx2<const CELL_BITS: u32>(
    block: &[u64; crate::hash::SECTORS],
    hash: u64,
) -> bool {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi64, _mm256_loadu_si256,
        _mm256_or_si256, _mm256_setzero_si256, _mm256_testz_si256,
    };
    // SAFETY: the loads read the eight `u64` words of the block, two halves
    // of 32 bytes each wholly inside the array (unaligned access is
    // allowed); the other intrinsics and functions need at most AVX2, which
    // the caller promises.
    unsafe {
        let cells = sector_cells::<CELL_BITS>(hash);
        // A word misses when its cell is all zero: for one-bit cells, when
        // its bit is clear (one instruction a half where wider cells take
        // two, and each waits for the line).
        let absent = |half: usize| {
            let words: __m256i = _mm256_loadu_si256(block[4 * half..].as_ptr().cast());
            if CELL_BITS == 1 {
                _mm256_andnot_si256(words, cells[half])
            } else {
                _mm256_cmpeq_epi64(_mm256_and_si256(words, cells[half]), _mm256_setzero_si256())
            }
        };
        let missing = _mm256_or_si256(absent(0), absent(1));
        _mm256_testz_si256(missing, missing) == 1
    }
}

/// [`sector_cells_set_avx2`] with AVX-512's test into a mask register
/// (`vptestmq`, from its `VL` part, on the same 256-bit registers): each
/// half of the block tested against its cells in one instruction that
/// leaves one bit per word, the two results ANDed and compared. (The
/// compiler turns it around for one-bit cells: each half's words shifted
/// down to their bits and tested against ones, `vptestnmq`.) Seventeen
/// instructions before the return, as the AVX2 copy has, and more of them
/// wait for the line (eight after the two loads, against five); it
/// measured faster past the cache all the same (37.1 to 38.2 ns a miss
/// over a 1 GiB blocked Bloom filter against 40.6 to 42.3, the floor 36.5
/// to 37.9; `benches/FINDINGS.md`), which the counts do not explain.
///
/// It stays on 256-bit registers: the same test on one 512-bit register
/// (the whole block in one load) measured the same (37.5 ns a miss over a
/// 1 GiB blocked Bloom filter against 38.2 for this form and 37.9 for the
/// hash + 1 line floor, on the guest of 5 December; `benches/FINDINGS.md`),
/// and 512-bit instructions lower the clock of some Intel processors.
///
/// # Safety
///
/// The processor must have AVX-512F and AVX-512VL (and so AVX2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn sector_cells_set_avx512<const CELL_BITS: u32>(
    block: &[u64; crate::hash::SECTORS],
    hash: u64,
) -> bool {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_test_epi64_mask};
    // SAFETY: the loads read the eight `u64` words of the block, two halves
    // of 32 bytes each wholly inside the array (unaligned access is
    // allowed); the other intrinsics and functions need at most AVX2,
    // AVX-512F and AVX-512VL, which the caller promises.
    unsafe {
        let cells = sector_cells::<CELL_BITS>(hash);
        let half = |h: usize| -> __m256i { _mm256_loadu_si256(block[4 * h..].as_ptr().cast()) };
        // One bit per word, set where the word's cell is non-zero.
        let set =
            _mm256_test_epi64_mask(half(0), cells[0]) & _mm256_test_epi64_mask(half(1), cells[1]);
        set == 0b1111
    }
}

/// AES-128 by the processor's AES instructions (AES-NI): the round keys of
/// one key, expanded by them. A value exists only where
/// [`detect`](Self::detect) found AES-NI, which is what makes every use of
/// the instructions below sound; elsewhere the type has no value.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(crate) struct AesNi {
    /// The eleven round keys of AES-128, in the order the rounds use them.
    #[cfg(target_arch = "x86_64")]
    round_keys: [[u8; 16]; 11],
    #[cfg(not(target_arch = "x86_64"))]
    never: std::convert::Infallible,
}

impl AesNi {
    /// The key schedule of `key`, if this processor has AES-NI and the
    /// feature `portable` is off.
    pub(crate) fn detect(key: [u8; 16]) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if !cfg!(feature = "portable") && std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: `expand_aes_ni` needs only AES-NI, just detected.
            let round_keys = unsafe { expand_aes_ni(key) };
            return Some(Self { round_keys });
        }
        let _ = key;
        None
    }

    /// The hash of `item` ([`Hasher::finish`](std::hash::Hasher::finish)
    /// of its CMAC stream), every step of it compiled with the AES
    /// instructions.
    #[inline(always)]
    pub(crate) fn hash<T: std::hash::Hash>(&self, subkeys: &crate::cmac::Subkeys, item: T) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `self` exists only where `detect` found AES-NI, the
            // one requirement of the `target_feature` function; its body
            // is the safe portable CMAC, with this type as its cipher.
            unsafe { cmac_aes_ni(self, subkeys, item) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (subkeys, item);
            match self.never {}
        }
    }
}

impl crate::cmac::Cipher for AesNi {
    #[inline(always)]
    fn encrypt(&self, block: [u8; 16]) -> [u8; 16] {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: as in `hash`: a value means AES-NI is there.
            unsafe { encrypt_aes_ni(&self.round_keys, block) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = block;
            match self.never {}
        }
    }
}

/// The hash of `item` by CMAC with AES-NI's cipher, compiled with AES-NI so that
/// the rounds of [`encrypt_aes_ni`] are inlined into it.
///
/// # Safety
///
/// The processor must have AES-NI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes")]
unsafe fn cmac_aes_ni<T: std::hash::Hash>(
    ni: &AesNi,
    subkeys: &crate::cmac::Subkeys,
    item: T,
) -> u64 {
    use std::hash::Hasher;
    let mut stream = crate::cmac::Stream::new(ni, subkeys);
    item.hash(&mut stream);
    stream.finish()
}

/// One AES-128 encryption: the whitening key, nine rounds and the last.
///
/// # Safety
///
/// The processor must have AES-NI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes")]
#[inline]
unsafe fn encrypt_aes_ni(round_keys: &[[u8; 16]; 11], block: [u8; 16]) -> [u8; 16] {
    use std::arch::x86_64::{
        _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
    };
    let mut out = [0u8; 16];
    // SAFETY: every load and store is of a whole `[u8; 16]` that the
    // reference or local it comes from covers (unaligned access is allowed);
    // the AES instructions need only AES-NI, which the caller promises.
    unsafe {
        let key = |i: usize| _mm_loadu_si128(round_keys[i].as_ptr().cast());
        let mut b = _mm_xor_si128(_mm_loadu_si128(block.as_ptr().cast()), key(0));
        for i in 1..10 {
            b = _mm_aesenc_si128(b, key(i));
        }
        b = _mm_aesenclast_si128(b, key(10));
        _mm_storeu_si128(out.as_mut_ptr().cast(), b);
    }
    out
}

/// AES-128's key expansion (FIPS 197, section 5.2) with `aeskeygenassist`:
/// each round key is the previous one with its words folded in and the
/// assist's rotated, substituted last word, with the round constant, added.
///
/// # Safety
///
/// The processor must have AES-NI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes")]
unsafe fn expand_aes_ni(key: [u8; 16]) -> [[u8; 16]; 11] {
    use std::arch::x86_64::{
        __m128i, _mm_aeskeygenassist_si128, _mm_loadu_si128, _mm_shuffle_epi32, _mm_slli_si128,
        _mm_storeu_si128, _mm_xor_si128,
    };
    fn next(previous: __m128i, assist: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let mut k = previous;
            k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
            k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
            k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
            _mm_xor_si128(k, _mm_shuffle_epi32::<0xff>(assist))
        }
    }
    let mut keys = [[0u8; 16]; 11];
    // SAFETY: loads and stores of whole `[u8; 16]`s of locals; the assist
    // instruction needs only AES-NI, which the caller promises.
    unsafe {
        let mut k = _mm_loadu_si128(key.as_ptr().cast());
        _mm_storeu_si128(keys[0].as_mut_ptr().cast(), k);
        macro_rules! round {
            ($i:expr, $rcon:expr) => {
                k = next(k, _mm_aeskeygenassist_si128::<$rcon>(k));
                _mm_storeu_si128(keys[$i].as_mut_ptr().cast(), k);
            };
        }
        round!(1, 0x01);
        round!(2, 0x02);
        round!(3, 0x04);
        round!(4, 0x08);
        round!(5, 0x10);
        round!(6, 0x20);
        round!(7, 0x40);
        round!(8, 0x80);
        round!(9, 0x1b);
        round!(10, 0x36);
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every copy of the sectored test this processor can run: the
    /// portable one always, AVX2 and AVX-512 where they were detected.
    fn sector_tests() -> Vec<SectorTest> {
        let mut tests = vec![SectorTest {
            code: SectorCode::Portable,
        }];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                tests.push(SectorTest {
                    code: SectorCode::Avx2,
                });
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                tests.push(SectorTest {
                    code: SectorCode::Avx512,
                });
            }
        }
        tests
    }

    /// `detect` picks the widest copy the processor runs, or the portable
    /// one under the feature `portable`.
    #[test]
    fn detect_picks_the_widest_copy_there_is() {
        let want = if cfg!(feature = "portable") {
            sector_tests().first().copied()
        } else {
            sector_tests().last().copied()
        };
        assert_eq!(Some(SectorTest::detect()), want);
    }

    /// The check that the feature `portable` took effect, for the runs of
    /// every crate's tests under it (`.ci/run`): nothing detected at run
    /// time chooses AVX2, AVX-512 or AES-NI.
    #[cfg(feature = "portable")]
    #[test]
    fn the_feature_portable_runs_the_portable_code() {
        assert_eq!(SectorTest::detect().name(), "portable");
        assert_eq!(crate::hash::SectorTest::default().name(), "portable");
        assert!(AesNi::detect([7; 16]).is_none());
        assert!(!crate::AesCmac::from_seed(1).accelerated());
        assert!(!crate::AesCmac::random().accelerated());
    }

    /// Every block of a seeded stream, and each word of it cleared in turn,
    /// gets the same answer from every copy of the test this processor
    /// runs (AVX2 and AVX-512 where it has them) as from the portable one,
    /// for bits, 2-bit cells and 4-bit counters.
    #[test]
    fn the_vector_lookups_answer_as_the_portable_one() {
        fn check<const CELL_BITS: u32>(block: &[u64; 8], hash: u64) -> bool {
            let want = crate::hash::sector_cells_set_portable::<CELL_BITS>(block, hash);
            for test in sector_tests() {
                assert_eq!(
                    test.cells_set::<CELL_BITS>(block, hash),
                    want,
                    "{test:?} {block:x?} {hash:x}"
                );
            }
            want
        }
        /// `block` holds the item; with any one of its cells cleared it
        /// does not.
        fn holds_until_a_cell_is_cleared<const CELL_BITS: u32>(block: [u64; 8], hash: u64) {
            assert!(check::<CELL_BITS>(&block, hash));
            let cells = crate::hash::sector_cell_masks(hash, 1, CELL_BITS);
            let all_ones = (1 << CELL_BITS) - 1;
            for w in 0..8 {
                let mut short = block;
                short[w] &= !(cells[w] * all_ones);
                assert!(
                    !check::<CELL_BITS>(&short, hash),
                    "word {w} cleared, cells of {CELL_BITS} bits"
                );
            }
        }
        let mut state = 1u64;
        for _ in 0..if cfg!(miri) { 20 } else { 2_000 } {
            state = crate::hash::mix64(state);
            let hash = state;
            // Counters holding the item (its own at 3, random others).
            let noise = crate::hash::sector_cell_masks(crate::hash::mix64(hash), 3, 4);
            let own = crate::hash::sector_cell_masks(hash, 1, 4);
            let counters: [u64; 8] = std::array::from_fn(|w| (own[w] * 3) | noise[w]);
            holds_until_a_cell_is_cleared::<4>(counters, hash);
            holds_until_a_cell_is_cleared::<1>(crate::hash::sector_cell_masks(hash, 1, 1), hash);
            holds_until_a_cell_is_cleared::<2>(crate::hash::sector_cell_masks(hash, 1, 2), hash);
            // Random words: either answer, the same from both.
            let random: [u64; 8] = std::array::from_fn(|i| crate::hash::mix64(hash ^ i as u64));
            check::<1>(&random, hash);
            check::<4>(&random, hash);
        }
    }
}
