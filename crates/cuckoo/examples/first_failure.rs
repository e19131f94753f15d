//! Measures the load at which a table's first insert fails, over seeds and
//! bucket counts: the evidence for the design loads of
//! `bloomlab_core::theory::cuckoo::design_load` and the fingerprint floor.
//!
//! ```text
//! cargo run --release -p bloomlab-cuckoo --example first_failure -- B F SEEDS M...
//! ```
//!
//! prints, for `B`-slot buckets, `F`-bit fingerprints and each bucket count
//! `M`, the lowest, mean and highest first-failure load over `SEEDS` seeds.

use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::members;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: B F SEEDS M..."))
        .collect();
    let [b, f, seeds, sizes @ ..] = args.as_slice() else {
        eprintln!("usage: first_failure B F SEEDS M...");
        std::process::exit(2);
    };
    for &m in sizes {
        let loads: Vec<f64> = (0..*seeds)
            .map(|seed| {
                let mut cf = CuckooFilter::builder_with_buckets(m, *f as u32)
                    .bucket_size(*b as u32)
                    .seed(seed * 7_919 + m)
                    .build()
                    .expect("valid shape");
                let keys = members(seed ^ (m << 20), cf.capacity() as usize + 1);
                for k in &keys {
                    if cf.insert(k).is_err() {
                        break;
                    }
                }
                cf.fill_ratio()
            })
            .collect();
        let min = loads.iter().copied().fold(f64::INFINITY, f64::min);
        let max = loads.iter().copied().fold(0.0, f64::max);
        let mean = loads.iter().sum::<f64>() / loads.len() as f64;
        println!("b {b} f {f} m {m:>9} seeds {seeds:>4}: min {min:.4} mean {mean:.4} max {max:.4}");
    }
}
