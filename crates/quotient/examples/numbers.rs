//! The numbers the crate docs state: bits per item and measured rates of a
//! filter of 100,000 items at 1%, and of one grown from 1,000 to 1,000,000.
use bloomlab_quotient::QuotientFilter;

fn main() {
    let mut f = QuotientFilter::<u64>::builder(100_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    for i in 0..100_000u64 {
        f.insert(&i).unwrap();
    }
    let bits = f.memory_bytes() as f64 * 8.0 / 100_000.0;
    let passed = (1_000_000..1_200_000u64).filter(|i| f.contains(i)).count();
    println!(
        "q {} r {} bits {bits} fpr {} passed {passed}",
        f.quotient_bits(),
        f.remainder_bits(),
        f.expected_fpr()
    );
    let mut g = QuotientFilter::<u64>::builder(1_000, 0.01)
        .growth(true)
        .seed(1)
        .build()
        .unwrap();
    for i in 0..1_000_000u64 {
        g.insert(&i).unwrap();
    }
    let bits = g.memory_bytes() as f64 * 8.0 / 1e6;
    let passed = (10_000_000..10_200_000u64)
        .filter(|i| g.contains(i))
        .count();
    println!(
        "grown e {} q {} w {} bits {bits} fpr {} passed {passed}",
        g.expansions(),
        g.quotient_bits(),
        g.slot_bits(),
        g.expected_fpr()
    );
}
