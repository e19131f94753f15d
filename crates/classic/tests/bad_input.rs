//! Every bad constructor input gives its typed error, never a panic.

use bloomlab_classic::{
    AtomicBloomFilter, BlockLayout, BlockedBloomFilter, BloomFilter, BuildError,
};
use bloomlab_core::ParamError;
use bloomlab_testkit::inputs::{assert_refused, assert_refuses_invalid_fprs};

fn classic(n: usize, p: f64) -> Result<BloomFilter<u64>, BuildError> {
    BloomFilter::builder(n, p).seed(1).build()
}

fn bits(m: u64, k: u32) -> Result<BloomFilter<u64>, BuildError> {
    BloomFilter::builder_with_bits(m, k).seed(1).build()
}

fn blocked(n: usize, p: f64) -> Result<BlockedBloomFilter<u64>, BuildError> {
    BlockedBloomFilter::builder(n, p).seed(1).build()
}

fn blocks(b: u64, k: u32) -> Result<BlockedBloomFilter<u64>, BuildError> {
    BlockedBloomFilter::builder_with_blocks(b, k)
        .seed(1)
        .build()
}

fn atomic(n: usize, p: f64) -> Result<AtomicBloomFilter<u64>, BuildError> {
    AtomicBloomFilter::builder(n, p).seed(1).build()
}

fn atomic_bits(m: u64, k: u32) -> Result<AtomicBloomFilter<u64>, BuildError> {
    AtomicBloomFilter::builder_with_bits(m, k).seed(1).build()
}

/// The error of building each kind of filter for `n` items at rate `p`.
fn sized(n: usize, p: f64) -> [Option<BuildError>; 3] {
    [classic(n, p).err(), blocked(n, p).err(), atomic(n, p).err()]
}

/// The error of building each kind of filter of `size` bits (blocks) and `k` hashes.
fn exact(size: u64, k: u32) -> [Option<BuildError>; 3] {
    [
        bits(size, k).err(),
        blocks(size, k).err(),
        atomic_bits(size, k).err(),
    ]
}

#[test]
fn fpr_zero_one_negative_nan_infinite() {
    assert_refuses_invalid_fprs(|p| classic(1_000, p));
    assert_refuses_invalid_fprs(|p| blocked(1_000, p));
    assert_refuses_invalid_fprs(|p| atomic(1_000, p));
}

#[test]
fn sectored_blocks_take_multiples_of_eight_hashes() {
    for k in [1, 7, 12, 63] {
        let e = ParamError::HashesPerSector {
            hashes: k,
            sectors: 8,
        };
        assert_refused(blocks(64, k), e);
    }
    let positions = BlockedBloomFilter::<u64>::builder_with_blocks(64, 7)
        .layout(BlockLayout::Positions)
        .build();
    assert_eq!(positions.unwrap().num_hashes(), 7);
}

#[test]
fn zero_items() {
    let e = Some(BuildError::Param(ParamError::ZeroItems));
    assert_eq!(sized(0, 0.01), [e; 3]);
}

#[test]
fn zero_bits() {
    assert_refused(bits(0, 3), ParamError::ZeroBits);
}

#[test]
fn zero_hashes() {
    assert_refused(bits(64, 0), ParamError::ZeroHashes);
}

#[test]
fn too_many_hashes() {
    let e = Some(BuildError::Param(ParamError::TooManyHashes(65)));
    assert_eq!(exact(64, 65), [e; 3]);
    assert_eq!(exact(64, 64), [None; 3]);
}

#[test]
fn overflowing_size() {
    // usize::MAX items at 1% need more bits than a u64 counts (classic), or
    // more bytes than a u64 counts (blocked: 3.5·10^17 blocks of 64 bytes).
    for e in sized(usize::MAX, 0.01) {
        assert!(
            matches!(e, Some(BuildError::Param(ParamError::TooLarge { .. }))),
            "{e:?}"
        );
    }
    // u64::MAX blocks of 64 bytes overflow a u64 byte count.
    assert!(matches!(
        blocks(u64::MAX, 8),
        Err(BuildError::Param(ParamError::TooLarge { needed, .. })) if needed == u128::from(u64::MAX) * 64
    ));
    // u64::MAX bits fit the arithmetic but no allocator: 2^61 bytes.
    for e in [bits(u64::MAX, 3).err(), atomic_bits(u64::MAX, 3).err()] {
        assert!(
            matches!(
                e,
                Some(
                    BuildError::OutOfMemory { .. } | BuildError::Param(ParamError::TooLarge { .. })
                )
            ),
            "{e:?}"
        );
    }
}

#[test]
fn above_max_bytes() {
    // 1,000,000 items at 1% need 9,848,832 bits: 1,231,104 bytes.
    let err = BloomFilter::<u64>::builder(1_000_000, 0.01)
        .max_bytes(1 << 20)
        .build()
        .unwrap_err();
    assert!(
        matches!(err, BuildError::Param(ParamError::TooLarge { needed, limit })
            if needed == 1_231_104 && limit == 1 << 20),
        "{err:?}"
    );
    let built = BloomFilter::<u64>::builder_with_bits(8 * 4_097, 3)
        .max_bytes(4_096)
        .build();
    let too_large = ParamError::TooLarge {
        needed: 4_104,
        limit: 4_096,
    };
    assert_refused(built, too_large);
    assert!(
        BloomFilter::<u64>::builder_with_bits(8 * 4_096, 3)
            .max_bytes(4_096)
            .build()
            .is_ok()
    );
}
