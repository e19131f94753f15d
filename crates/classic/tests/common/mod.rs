//! What the classic and the atomic filter's tests share.

/// The stored form, as hex, of a table of 100 bits and 3 hashes seeded 7
/// that holds 1, 2 and 3, under the variant tag `variant` and sealed by
/// `crc`: the classic and the atomic filter store the same fields.
pub fn pinned_100_bits(variant: &str, crc: &str) -> String {
    [
        "424c4d46",                         // magic "BLMF"
        "0100",                             // format version 1
        variant,                            // variant
        "d29c963834099d362914eed032e4c7d6", // key of seed 7
        "14000000",                         // 20 bytes of parameters:
        "6400000000000000",                 //   100 bits
        "03000000",                         //   3 hashes
        "0300000000000000",                 //   3 inserts
        "1000000000000000",                 // 16 bytes of payload:
        "040000000c000001",                 //   word 0
        "8880001000000000",                 //   word 1 (bits 64..100)
        crc,                                // CRC-32
    ]
    .concat()
}
