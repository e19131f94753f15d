//! Decoding arbitrary, truncated and corrupted bytes: always a value or a
//! typed error, never a panic.

use bloomlab_guava::{GuavaBloomFilter, LongFunnel, ReadError, Strategy, StringFunnel};
use proptest::prelude::*;

/// A small valid filter of either strategy, holding `items`.
fn filter(strategy: Strategy, n: u64, items: &[i64]) -> GuavaBloomFilter<LongFunnel> {
    let mut f = GuavaBloomFilter::create_with_strategy(LongFunnel, n, 0.01, strategy).unwrap();
    for item in items {
        f.put(item);
    }
    f
}

fn strategy() -> impl proptest::strategy::Strategy<Value = Strategy> {
    prop_oneof![
        Just(Strategy::Murmur128Mitz32),
        Just(Strategy::Murmur128Mitz64)
    ]
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let whole = GuavaBloomFilter::from_bytes(&bytes, StringFunnel);
        let streamed = GuavaBloomFilter::read_from(&bytes[..], StringFunnel);
        if let Ok(f) = &whole {
            // A filter that decodes is the exact bytes it came from.
            prop_assert_eq!(f.to_bytes(), bytes.clone());
            prop_assert!(streamed.as_ref().is_ok_and(|s| s == f));
            let _ = (f.might_contain("x"), f.expected_fpp(), f.approximate_element_count());
        }
    }

    #[test]
    fn plausible_headers_never_panic(
        ordinal in 0u8..3,
        k in any::<u8>(),
        words in prop_oneof![-3i32..8, Just(i32::MAX), Just(i32::MIN), any::<i32>()],
        body in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        let mut bytes = vec![ordinal, k];
        bytes.extend(words.to_be_bytes());
        bytes.extend(&body);
        let whole = GuavaBloomFilter::from_bytes(&bytes, StringFunnel);
        let exact = ordinal < 2 && k > 0 && words > 0 && body.len() == words as usize * 8;
        prop_assert_eq!(whole.is_ok(), exact, "{:?}", whole.err());
        let streamed = GuavaBloomFilter::read_from(&bytes[..], StringFunnel);
        let enough = ordinal < 2 && k > 0 && words > 0 && body.len() >= words as usize * 8;
        prop_assert_eq!(streamed.is_ok(), enough, "{:?}", streamed.err());
        if let Ok(mut f) = streamed {
            f.put("日本語");
            prop_assert!(f.might_contain("日本語"));
        }
    }

    #[test]
    fn every_truncation_is_an_error(
        strategy in strategy(),
        n in 1u64..300,
        items in proptest::collection::vec(any::<i64>(), 0..50),
    ) {
        let bytes = filter(strategy, n, &items).to_bytes();
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            let whole = GuavaBloomFilter::from_bytes(cut, LongFunnel);
            prop_assert!(matches!(whole, Err(ReadError::Truncated { .. })), "{len}: {whole:?}");
            let streamed = GuavaBloomFilter::read_from(cut, LongFunnel);
            prop_assert!(matches!(streamed, Err(ReadError::Truncated { .. })), "{len}: {streamed:?}");
        }
    }

    #[test]
    fn corrupted_words_still_decode_and_answer(
        strategy in strategy(),
        items in proptest::collection::vec(any::<i64>(), 1..50),
        flip in any::<prop::sample::Index>(),
        probe in any::<i64>(),
    ) {
        let f = filter(strategy, 100, &items);
        let mut bytes = f.to_bytes();
        // Past the header every byte is bits: a flipped one is another filter.
        let i = 6 + flip.index(bytes.len() - 6);
        bytes[i] ^= 0x5a;
        let g = GuavaBloomFilter::from_bytes(&bytes, LongFunnel).unwrap();
        prop_assert_eq!(g.to_bytes(), bytes);
        let _ = g.might_contain(&probe);
    }

    #[test]
    fn write_then_read_round_trips(
        strategy in strategy(),
        n in 0u64..2000,
        items in proptest::collection::vec(any::<i64>(), 0..100),
    ) {
        let f = filter(strategy, n, &items);
        let back = GuavaBloomFilter::from_bytes(&f.to_bytes(), LongFunnel).unwrap();
        prop_assert_eq!(back.approximate_element_count(), f.approximate_element_count());
        prop_assert!(items.iter().all(|i| back.might_contain(i)));
        prop_assert!(back == f);
    }
}
