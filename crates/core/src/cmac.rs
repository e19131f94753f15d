//! [`AesCmac`]: the keyed hash of every filter made now (the function of
//! [`DefaultHasher`]), as hard to predict as keyed SipHash-1-3, the function
//! before it, and about half its cost where the processor has AES
//! instructions.
//!
//! The hash of an item is the first 64 bits, little-endian, of the AES-CMAC
//! (NIST SP 800-38B, RFC 4493) under a 128-bit key of the bytes the item's
//! [`Hash`] impl writes. CMAC is a pseudorandom function if AES is a
//! pseudorandom permutation, so whoever does not hold the key cannot
//! compute items that pass a filter, as with SipHash-1-3.
//!
//! An item of at most 15 bytes (every integer, and a string of at most 14)
//! costs one AES block: ten rounds, one instruction each on x86-64 with
//! AES-NI, which [`AesCmac`] finds once, when it is made, and uses through
//! the audited module `raw`. Without AES-NI (other processors, or x86-64
//! machines without it) the same function is computed by the `aes` crate,
//! so a filter gives the same answers on every machine.
//!
//! ## Why not `cmac::Cmac<aes::Aes128>`
//!
//! RustCrypto's `cmac` and `aes` crates compute the same function (the
//! tests below check every path against `cmac`), and `aes` uses AES-NI
//! where it finds it. Issue 50 kept this module only if it hashed a `u64`
//! at least 1.25 times as fast. Medians in ns per hash, from `cargo bench
//! -p bloomlab-benches --bench cmac -- --warm-up-time 1 --measurement-time
//! 3` (6 December 2026, a 2-core AMD EPYC guest with AES-NI, AVX2 and
//! AVX-512, load average about 1), each row checked equal to this one on every
//! item before timing; the ratios are the crate's time over this module's:
//!
//! | item | `AesCmac::hash_one` | `Cmac`, keyed once, cloned per hash | ratio | one `Cmac`, `finalize_reset` | ratio |
//! | --- | ---: | ---: | ---: | ---: | ---: |
//! | `u64` | 2.13 | 93.36 | 43.8 | 38.58 | 18.1 |
//! | 16-byte `str` | 24.24 | 118.41 | 4.9 | 60.44 | 2.5 |
//! | 64-byte `str` | 58.16 | 185.38 | 3.2 | 129.95 | 2.2 |
//!
//! With the feature `portable` (the same command with `--features
//! bloomlab-core/portable`: this module's CMAC over the `aes` crate's
//! cipher), `hash_one` took 19.76, 29.24 and 59.75 ns, against 38.66 for
//! the crate's cheapest `u64` row in that run.
//!
//! A filter hashes through `hash_one(&self)`, and `Cmac::finalize` consumes
//! the MAC, so a hasher over the crates clones a keyed `Cmac` per item (the
//! first crate column); the last is the crate at its cheapest, one `Cmac`
//! reset after every tag, which a shared filter could only have behind a
//! lock. The `portable` run splits the gap in two: over the same `aes`
//! cipher, this module's mode costs half the crate's cheapest row, since
//! `cmac` 0.7 encrypts the zero block again at every tag to derive its
//! subkeys (two calls of the cipher for a one-block message, where this
//! module keeps [`Subkeys`] with the key); the AES-NI rounds inlined into
//! one function compiled for them take the rest.
//!
//! [`DefaultHasher`]: crate::DefaultHasher

use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use aes::Aes128;
use aes::cipher::{BlockEncrypt, KeyInit, generic_array::GenericArray};

use crate::raw::AesNi;

/// One AES block.
pub(crate) type Block = [u8; 16];

/// AES-128 under one key, by whichever code encrypts it.
pub(crate) trait Cipher {
    /// The encryption of `block`.
    fn encrypt(&self, block: Block) -> Block;
}

impl Cipher for Aes128 {
    #[inline]
    fn encrypt(&self, block: Block) -> Block {
        let mut b = GenericArray::from(block);
        self.encrypt_block(&mut b);
        b.into()
    }
}

#[inline(always)]
fn xor(a: Block, b: Block) -> Block {
    (u128::from_ne_bytes(a) ^ u128::from_ne_bytes(b)).to_ne_bytes()
}

/// CMAC's doubling in GF(2^128): a shift left by one bit of the block read
/// big-endian, folding the bit shifted out back in as `0x87`.
fn double(block: Block) -> Block {
    let v = u128::from_be_bytes(block);
    let carry = if v >> 127 == 1 { 0x87 } else { 0 };
    ((v << 1) ^ carry).to_be_bytes()
}

/// CMAC's two subkeys, `K1` for a message that ends on a whole block and
/// `K2` for one whose last block is padded.
// Aligned, as are `State` and the round keys, so that each block is one
// aligned 16-byte access (`perf annotate` of a probe had stalls on blocks at
// odd offsets; the probe's time did not move measurably).
#[repr(C, align(16))]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Subkeys {
    k1: Block,
    k2: Block,
}

impl Subkeys {
    fn new(cipher: &impl Cipher) -> Self {
        let k1 = double(cipher.encrypt([0; 16]));
        Self { k1, k2: double(k1) }
    }
}

/// A CMAC part way through a message: the chaining value of the blocks
/// taken so far and the bytes of the block being filled, zero past
/// `filled`.
///
/// The last block is held back until the tag is asked for, since only then
/// is it known to be the last.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(crate) struct State {
    chain: Block,
    buffer: Block,
    filled: usize,
}

impl State {
    pub(crate) const fn new() -> Self {
        Self {
            chain: [0; 16],
            buffer: [0; 16],
            filled: 0,
        }
    }

    /// Appends `bytes` to the message.
    #[inline(always)]
    pub(crate) fn write(&mut self, cipher: &impl Cipher, mut bytes: &[u8]) {
        // The usual case, an item's field that fits the block being filled.
        if let Some(room) = self.buffer.get_mut(self.filled..self.filled + bytes.len()) {
            room.copy_from_slice(bytes);
            self.filled += bytes.len();
            return;
        }
        while !bytes.is_empty() {
            if self.filled == 16 {
                self.chain = cipher.encrypt(xor(self.chain, self.buffer));
                (self.buffer, self.filled) = ([0; 16], 0);
            }
            let n = (16 - self.filled).min(bytes.len());
            self.buffer[self.filled..self.filled + n].copy_from_slice(&bytes[..n]);
            self.filled += n;
            bytes = &bytes[n..];
        }
    }

    /// The tag of the message written so far.
    #[inline(always)]
    pub(crate) fn tag(&self, cipher: &impl Cipher, subkeys: &Subkeys) -> Block {
        let last = if self.filled == 16 {
            xor(self.buffer, subkeys.k1)
        } else {
            // Zero past `filled` already: the pad is one bit, set in a
            // register (byte i of the block is bits 8i to 8i + 7, read
            // little-endian).
            let pad = 0x80u128 << (8 * (self.filled % 16));
            let padded = (u128::from_le_bytes(self.buffer) | pad).to_le_bytes();
            xor(padded, subkeys.k2)
        };
        cipher.encrypt(xor(self.chain, last))
    }
}

/// A [`Hasher`] that borrows its cipher and subkeys: what
/// [`AesCmac::hash_one`] feeds an item to.
pub(crate) struct Stream<'c, C> {
    cipher: &'c C,
    subkeys: &'c Subkeys,
    state: State,
}

impl<'c, C: Cipher> Stream<'c, C> {
    #[inline(always)]
    pub(crate) fn new(cipher: &'c C, subkeys: &'c Subkeys) -> Self {
        Self {
            cipher,
            subkeys,
            state: State::new(),
        }
    }

    /// The tag of the message written so far.
    #[inline(always)]
    pub(crate) fn tag(&self) -> Block {
        self.state.tag(self.cipher, self.subkeys)
    }
}

impl<C: Cipher> Hasher for Stream<'_, C> {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.state.write(self.cipher, bytes);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        first_word(self.tag())
    }
}

/// The hash: the tag's first eight bytes, little-endian.
#[inline(always)]
fn first_word(tag: Block) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&tag[..8]);
    u64::from_le_bytes(word)
}

/// Keyed AES-128-CMAC, as a [`BuildHasher`]: a filter made with
/// `.hasher(AesCmac::random())` hashes each item with it. It is the function
/// of [`DefaultHasher`](crate::DefaultHasher) for every filter made now.
///
/// Like SipHash-1-3, it is keyed: with a random key
/// ([`random`](Self::random), also [`Default`]) no one who knows this code
/// but not the key can compute items that pass a filter. It is cheaper
/// where the processor has AES instructions (a hash of a `u64` is one AES
/// block), and the same function everywhere else.
/// [`from_seed`](Self::from_seed) derives the key from a `u64` for
/// reproducible experiments, as [`DefaultHasher::from_seed`] does.
///
/// Filters hash through [`BuildHasher::hash_one`], which this type
/// overrides to run the whole hash in one function compiled with the AES
/// instructions; [`build_hasher`](BuildHasher::build_hasher) gives the same
/// values through a hasher that shares the key schedule (one reference
/// count taken and given back a hasher).
///
/// ```
/// use std::hash::{BuildHasher, Hasher};
/// use bloomlab_core::AesCmac;
///
/// let a = AesCmac::from_seed(7);
/// assert_eq!(a.hash_one(42u64), AesCmac::from_key(a.key()).hash_one(42u64));
/// assert_ne!(a.hash_one(42u64), AesCmac::from_seed(8).hash_one(42u64));
///
/// let mut h = a.build_hasher();
/// h.write_u64(42);
/// assert_eq!(h.finish(), a.hash_one(42u64));
/// ```
///
/// [`DefaultHasher::from_seed`]: crate::DefaultHasher::from_seed
#[derive(Clone)]
pub struct AesCmac {
    key: [u64; 2],
    /// Shared by the clones and the hashers of this one: a hasher made by
    /// `build_hasher` for every item would otherwise copy 200 bytes of
    /// round keys (a probe: 36 ns a hash copying them, 26 to 28 sharing
    /// them, 3 by `hash_one`).
    keys: Arc<Keys>,
}

/// The key schedule and CMAC's subkeys.
struct Keys {
    engine: Engine,
    subkeys: Subkeys,
}

/// The code that encrypts, with its key schedule.
enum Engine {
    /// The processor's AES instructions.
    Ni(AesNi),
    /// The `aes` crate (boxed: its fixsliced keys are four times the size
    /// of the round keys above).
    Portable(Box<Aes128>),
}

impl Engine {
    fn new(key: Block, accelerated: bool) -> Self {
        match AesNi::detect(key).filter(|_| accelerated) {
            Some(ni) => Engine::Ni(ni),
            None => Engine::Portable(Box::new(Aes128::new(&GenericArray::from(key)))),
        }
    }
}

impl Cipher for Engine {
    #[inline]
    fn encrypt(&self, block: Block) -> Block {
        match self {
            Engine::Ni(ni) => ni.encrypt(block),
            Engine::Portable(aes) => aes.encrypt(block),
        }
    }
}

impl AesCmac {
    /// A hasher with a fresh random key.
    pub fn random() -> Self {
        Self::from_key(rand::random())
    }

    /// A hasher whose key is derived from `seed` as
    /// [`DefaultHasher::from_seed`](crate::DefaultHasher::from_seed)
    /// derives its own: the same seed gives the same key on every platform.
    pub fn from_seed(seed: u64) -> Self {
        Self::from_key(crate::hash::seed_key(seed))
    }

    /// A hasher with exactly this key (as returned by [`key`](Self::key)):
    /// the AES key is the two words' little-endian bytes, in order.
    pub fn from_key(key: [u64; 2]) -> Self {
        Self::with_engine(key, true)
    }

    fn with_engine(key: [u64; 2], accelerated: bool) -> Self {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&key[0].to_le_bytes());
        bytes[8..].copy_from_slice(&key[1].to_le_bytes());
        let engine = Engine::new(bytes, accelerated);
        let subkeys = Subkeys::new(&engine);
        Self {
            key,
            keys: Arc::new(Keys { engine, subkeys }),
        }
    }

    /// The 128-bit key, as two words.
    pub fn key(&self) -> [u64; 2] {
        self.key
    }

    /// Whether this hasher runs on the processor's AES instructions: never
    /// under the crate's feature `portable`.
    pub fn accelerated(&self) -> bool {
        matches!(self.keys.engine, Engine::Ni(_))
    }

    /// The same key, computed without the AES instructions: for tests that
    /// compare the two.
    #[cfg(test)]
    fn portable_only(&self) -> Self {
        Self::with_engine(self.key, false)
    }
}

impl Default for AesCmac {
    fn default() -> Self {
        Self::random()
    }
}

impl PartialEq for AesCmac {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for AesCmac {}

impl fmt::Debug for AesCmac {
    // The key is a secret: keep it out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesCmac")
            .field("accelerated", &self.accelerated())
            .finish_non_exhaustive()
    }
}

impl BuildHasher for AesCmac {
    type Hasher = AesCmacHasher;

    #[inline]
    fn build_hasher(&self) -> AesCmacHasher {
        AesCmacHasher {
            keys: Arc::clone(&self.keys),
            state: State::new(),
        }
    }

    // Inlined into the filter's lookup down to the one call of the AES-NI
    // function: the branches that choose it are a few instructions. Called,
    // with `DefaultHasher::hash_one` around it, the hash took 5.5 ns a key
    // and a 1M-item blocked filter's miss (table in the cache) 18.1 to 19.5;
    // inlined, 4.2 and 17.0 to 17.5 (a probe's loops over 2M absent keys,
    // medians of seven passes; `benches/FINDINGS.md`).
    #[inline(always)]
    fn hash_one<T: Hash>(&self, item: T) -> u64 {
        let keys = &*self.keys;
        match &keys.engine {
            Engine::Ni(ni) => ni.hash(&keys.subkeys, item),
            Engine::Portable(aes) => portable_hash(aes, &keys.subkeys, item),
        }
    }
}

/// [`AesCmac::hash_one`] by the `aes` crate: out of line, so that the
/// lookups that inline the hash carry only the call.
#[inline(never)]
fn portable_hash<T: Hash>(aes: &Aes128, subkeys: &Subkeys, item: T) -> u64 {
    let mut stream = Stream::new(aes, subkeys);
    item.hash(&mut stream);
    stream.finish()
}

/// The [`Hasher`] of [`AesCmac`]: a share of its key schedule, and the
/// message so far.
#[derive(Clone)]
pub struct AesCmacHasher {
    keys: Arc<Keys>,
    state: State,
}

impl fmt::Debug for AesCmacHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesCmacHasher").finish_non_exhaustive()
    }
}

impl Hasher for AesCmacHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.state.write(&self.keys.engine, bytes);
    }

    #[inline]
    fn finish(&self) -> u64 {
        first_word(self.state.tag(&self.keys.engine, &self.keys.subkeys))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::cmac::{Cmac, Mac};
    use proptest::prelude::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn block(s: &str) -> Block {
        hex(s).try_into().unwrap()
    }

    /// RFC 4493's key, as the two words `from_key` takes.
    fn rfc_key() -> [u64; 2] {
        let k = hex("2b7e151628aed2a6abf7158809cf4f3c");
        [
            u64::from_le_bytes(k[..8].try_into().unwrap()),
            u64::from_le_bytes(k[8..].try_into().unwrap()),
        ]
    }

    /// The tag of `message`, written in pieces of `split` bytes.
    fn tag_of(h: &AesCmac, message: &[u8], split: usize) -> Block {
        let mut state = State::new();
        for piece in message.chunks(split.max(1)) {
            state.write(&h.keys.engine, piece);
        }
        state.tag(&h.keys.engine, &h.keys.subkeys)
    }

    /// The tag of `message` by the `cmac` crate.
    fn oracle(key: [u64; 2], message: &[u8]) -> Block {
        let mut k = [0; 16];
        k[..8].copy_from_slice(&key[0].to_le_bytes());
        k[8..].copy_from_slice(&key[1].to_le_bytes());
        let mut mac = <Cmac<Aes128> as KeyInit>::new_from_slice(&k).unwrap();
        mac.update(message);
        mac.finalize().into_bytes().into()
    }

    #[test]
    fn subkeys_and_tags_are_rfc_4493s() {
        let message = hex(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
             30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        );
        let accelerated = AesCmac::from_key(rfc_key());
        for h in [accelerated.clone(), accelerated.portable_only()] {
            assert!(!h.portable_only().accelerated());
            assert_eq!(h.keys.subkeys.k1, block("fbeed618357133667c85e08f7236a8de"));
            assert_eq!(h.keys.subkeys.k2, block("f7ddac306ae266ccf90bc11ee46d513b"));
            for (len, tag) in [
                (0, "bb1d6929e95937287fa37d129b756746"),
                (16, "070a16b46b4d4144f79bdd9dd04a287c"),
                (40, "dfa66747de9ae63030ca32611497c827"),
                (64, "51f0bebf7e3b9d92fc49741779363cfe"),
            ] {
                for split in [1, 7, 16, 64] {
                    assert_eq!(
                        tag_of(&h, &message[..len], split),
                        block(tag),
                        "{len} {split}"
                    );
                }
            }
        }
    }

    /// The bytes an item's `Hash` writes, in order.
    #[derive(Default)]
    struct Recorder(Vec<u8>);

    impl Hasher for Recorder {
        fn write(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
        fn finish(&self) -> u64 {
            0
        }
    }

    fn written(item: impl Hash) -> Vec<u8> {
        let mut r = Recorder::default();
        item.hash(&mut r);
        r.0
    }

    // `build_hasher` by hand on purpose: its hasher is what is tested.
    #[allow(clippy::manual_hash_one)]
    fn check_item(key: [u64; 2], item: impl Hash + Copy) {
        let h = AesCmac::from_key(key);
        let want = first_word(oracle(key, &written(item)));
        assert_eq!(h.hash_one(item), want);
        assert_eq!(h.portable_only().hash_one(item), want);
        let mut owned = h.build_hasher();
        item.hash(&mut owned);
        assert_eq!(owned.finish(), want);
        let mut owned = h.portable_only().build_hasher();
        item.hash(&mut owned);
        assert_eq!(owned.finish(), want);
    }

    proptest! {
        #[test]
        fn every_path_gives_the_cmac_of_the_items_bytes(
            key in proptest::array::uniform2(any::<u64>()),
            word in any::<u64>(),
            text in ".{0,70}",
            pair in any::<(u32, u128)>(),
        ) {
            check_item(key, word);
            check_item(key, text.as_str());
            check_item(key, pair);
        }

        #[test]
        fn messages_split_anywhere_give_the_oracles_tag(
            key in proptest::array::uniform2(any::<u64>()),
            message in proptest::collection::vec(any::<u8>(), 0..100),
            split in 1usize..40,
        ) {
            let h = AesCmac::from_key(key);
            let want = oracle(key, &message);
            prop_assert_eq!(tag_of(&h, &message, split), want);
            prop_assert_eq!(tag_of(&h.portable_only(), &message, split), want);
        }
    }

    #[test]
    fn seeds_and_keys_name_one_hasher() {
        let a = AesCmac::from_seed(11);
        assert_eq!(a.key(), crate::DefaultHasher::from_seed(11).key());
        assert_eq!(a, AesCmac::from_key(a.key()));
        assert_ne!(a, AesCmac::from_seed(12));
        assert_ne!(AesCmac::random(), AesCmac::random());
        assert!(!format!("{a:?}").contains(&a.key()[0].to_string()));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_64_with_aes_ni_uses_it_unless_the_feature_portable_is_on() {
        let has = std::arch::is_x86_feature_detected!("aes");
        let wanted = !cfg!(feature = "portable");
        assert_eq!(AesCmac::from_seed(1).accelerated(), has && wanted);
    }
}
