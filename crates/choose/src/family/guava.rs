//! bloomlab-guava's filter, sized as Guava's `BloomFilter.create` sizes it,
//! and the size of the file `writeTo` makes of it.

use bloomlab::theory::classic;
use bloomlab_guava::sizing::{
    optimal_num_of_bits, optimal_num_of_hash_functions, words_for_bits, written_bytes,
};

use super::super::numbers::{grouped, sci};
use super::super::workload::Workload;
use super::{Offer, Supports};

/// What the figures count, for the report.
pub fn measure() -> String {
    "the file's size: the bytes `write_to` (Java's `writeTo`) writes, which Java's \
     `BloomFilter.readFrom` reads: a 6-byte header and the bit array"
        .to_owned()
}

/// The offers for a file a Java service reads: Guava's one filter.
pub fn offers(w: &Workload) -> Vec<Offer> {
    vec![offer(w)]
}

fn offer(w: &Workload) -> Offer {
    let type_name = "GuavaBloomFilter";
    let mut offer = Offer::new(
        "guava",
        type_name,
        "bloomlab-guava",
        Supports {
            remove: false,
            grow: false,
            concurrent_insert: false,
        },
    );
    let n = w.peak_items();
    if n > i64::MAX as u64 {
        offer.reasons.push(format!(
            "Guava takes at most {} expected insertions (a Java long)",
            grouped(i64::MAX as u64)
        ));
        return offer;
    }
    let bits = optimal_num_of_bits(n, w.fpr);
    let k = optimal_num_of_hash_functions(n, bits);
    if bits == 0 {
        offer.reasons.push(format!(
            "Guava's sizing gives 0 bits for {} at this rate, and `create` throws",
            grouped(n)
        ));
        return offer;
    }
    let Some(words) = words_for_bits(bits) else {
        offer.reasons.push(format!(
            "Guava sizes {} bits, which its array of at most 2^31 − 1 longs cannot hold",
            grouped(bits)
        ));
        return offer;
    };
    if k > u32::from(u8::MAX) {
        offer.reasons.push(format!(
            "Guava's sizing gives {k} hash functions; its format stores at most 255"
        ));
        return offer;
    }
    let m = u64::from(words) * 64;
    let file = written_bytes(words);
    offer.construct = format!(
        "GuavaBloomFilter::create(LongFunnel, {}, {:?})",
        grouped(n).replace(',', "_"),
        w.fpr
    );
    offer.parameters = format!("m={} k={k}", grouped(m));
    offer.set_figures(file, classic::fpr(m as f64, n as f64, f64::from(k)), n);
    offer.beyond = Some(format!(
        "past {} items its rate climbs, to {} at twice as many",
        grouped(n),
        sci(classic::fpr(m as f64, 2.0 * n as f64, f64::from(k)))
    ));
    offer.notes.push(
        "the funnel must be the Java side's: LongFunnel for Funnels.longFunnel(), StringFunnel \
         for Funnels.stringFunnel(UTF_8), …; write with `write_to`, read in Java with \
         `BloomFilter.readFrom(in, funnel)`"
            .to_owned(),
    );
    offer
}
