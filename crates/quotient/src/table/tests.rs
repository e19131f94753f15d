//! The table against a model: a sorted map from quotient to its sorted
//! values, after every insert and remove, with every invariant that
//! [`Table::check`] verifies (exact offsets included).

use std::collections::BTreeMap;

use bloomlab_core::hash::mix64;

use super::*;

type Model = BTreeMap<usize, Vec<u64>>;

fn flatten(model: &Model) -> Vec<(u64, u64)> {
    model
        .iter()
        .flat_map(|(&x, values)| values.iter().map(move |&v| (x as u64, v)))
        .collect()
}

fn agrees(table: &mut Table, model: &Model) {
    let mut copy = table.clone();
    copy.check(|_| true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(copy.used(), table.used());
    assert_eq!(table.entries().collect::<Vec<_>>(), flatten(model));
    for x in 0..table.canonical() as usize {
        let run = table
            .run(x)
            .map(|(s, e)| (s..e).map(|i| table.get(i)).collect::<Vec<_>>());
        assert_eq!(run.as_ref(), model.get(&x), "quotient {x}");
    }
}

/// Random inserts and removes with quotients drawn from `0 .. spread`.
fn exercise(q: u32, width: u32, spread: usize, steps: usize, seed: u64) {
    let mut table = Table::new(q, width).unwrap();
    let mut model = Model::new();
    let mut state = seed;
    let mut draw = || {
        state = mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
        state
    };
    let max_value = low_mask(width);
    for step in 0..steps {
        let r = draw();
        let remove = r % 3 == 0 && !model.is_empty();
        if remove {
            let keys: Vec<usize> = model.keys().copied().collect();
            let x = keys[(draw() % keys.len() as u64) as usize];
            let (start, end) = table.run(x).unwrap();
            let k = (draw() % (end - start) as u64) as usize;
            let v = table.get(start + k);
            table.remove(x, (start, end), start + k);
            let values = model.get_mut(&x).unwrap();
            let at = values.iter().position(|&w| w == v).unwrap();
            values.remove(at);
            if values.is_empty() {
                model.remove(&x);
            }
        } else {
            let x = (draw() % spread as u64) as usize;
            let v = (draw() & max_value).max(1);
            if table.insert(x, v) == Ok(()) {
                let values = model.entry(x).or_default();
                let at = values.partition_point(|&w| w <= v);
                values.insert(at, v);
            }
        }
        if step % 7 == 0 || step + 1 == steps {
            agrees(&mut table, &model);
        }
    }
}

#[test]
fn random_inserts_and_removes_agree_with_the_model() {
    for (seed, (q, width)) in [(6, 7), (8, 13), (10, 1), (9, 64), (7, 33)]
        .into_iter()
        .enumerate()
    {
        exercise(q, width, 1 << q, 2_500, seed as u64);
    }
}

#[test]
fn crowded_quotients_make_long_clusters() {
    // Every entry in a sixteenth of the quotients: clusters of hundreds of
    // slots, offsets past 255 (saturated and recomputed), and the spill
    // into the slots past the canonical ones.
    exercise(10, 9, 64, 4_000, 11);
    exercise(8, 5, 4, 1_500, 12);
}

#[test]
fn one_long_run_saturates_offsets() {
    let mut table = Table::new(10, 8).unwrap();
    for v in 0..400u64 {
        table.insert(0, v % 256).unwrap();
    }
    assert_eq!(table.offsets[1], SATURATED);
    assert_eq!(table.offset(1), 400 - 64);
    assert_eq!(table.offset(6), 400 - 6 * 64);
    // An entry of a later quotient lands after the run.
    table.insert(100, 5).unwrap();
    assert_eq!(table.run(100), Some((400, 401)));
    let mut model = Model::new();
    let mut zero: Vec<u64> = (0..400u64).map(|v| v % 256).collect();
    zero.sort_unstable();
    model.insert(0, zero);
    model.insert(100, vec![5]);
    agrees(&mut table, &model);
    // Emptying quotient 0 brings quotient 100's entry home.
    for _ in 0..400 {
        let run = table.run(0).unwrap();
        table.remove(0, run, run.0);
    }
    assert_eq!(table.run(100), Some((100, 101)));
    model.remove(&0);
    agrees(&mut table, &model);
}

#[test]
fn a_full_table_overflows_without_change() {
    let mut table = Table::new(2, 4).unwrap();
    let physical = table.physical();
    for i in 3..physical {
        table.insert(3, (i % 16) as u64).unwrap();
    }
    let before = table.clone();
    assert_eq!(table.insert(3, 1), Err(Overflow));
    assert!(table == before);
    // Slots before quotient 3 are still free for their own quotients.
    table.insert(1, 1).unwrap();
    assert_eq!(table.run(1), Some((1, 2)));
}

#[test]
fn the_writer_builds_what_inserts_build() {
    let mut inserted = Table::new(8, 11).unwrap();
    let mut entries = Vec::new();
    let mut x = 3u64;
    for _ in 0..230 {
        x = mix64(x);
        entries.push(((x >> 56) as usize, x & 0x7ff));
    }
    for &(q, v) in &entries {
        inserted.insert(q, v).unwrap();
    }
    entries.sort_unstable();
    let mut writer = Table::new(8, 11).unwrap().writer();
    for &(q, v) in &entries {
        writer.push(q, v).unwrap();
    }
    let written = writer.finish();
    assert!(written == inserted);
}

#[test]
fn check_refuses_broken_metadata() {
    let mut table = Table::new(8, 6).unwrap();
    for (x, v) in [(3, 1), (3, 2), (4, 9), (70, 3)] {
        table.insert(x, v).unwrap();
    }
    assert_eq!(table.clone().check(|_| true), Ok(()));
    let width = 2 + 6;
    let mut broken = Vec::new();
    let mut t = table.clone();
    t.words[1] ^= 1 << 10; // a stray run end
    broken.push(t);
    let mut t = table.clone();
    t.words[0] ^= 1 << 5; // an occupied quotient without a run
    broken.push(t);
    let mut t = table.clone();
    t.words[width] ^= 1 << 6; // a run of quotient 70 moved
    broken.push(t);
    let mut t = table.clone();
    t.offsets[1] = 3;
    broken.push(t);
    let mut t = table.clone();
    t.set(200, 5); // a value in a free slot
    broken.push(t);
    let mut t = table.clone();
    t.set(3, 7); // a run out of order
    broken.push(t);
    let last = table.blocks - 1;
    let mut t = table.clone();
    let base = t.block_base(last);
    t.words[base] = 1; // a quotient past the canonical ones
    broken.push(t);
    for (i, mut t) in broken.into_iter().enumerate() {
        assert!(t.check(|_| true).is_err(), "case {i}");
    }
    let mut t = table.clone();
    assert!(t.check(|v| v != 9).is_err());
}

#[test]
fn block_wise_shifts_move_what_one_slot_at_a_time_moves() {
    let mut state = 7u64;
    let mut draw = |below: usize| {
        state = mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
        (state % below as u64) as usize
    };
    for width in [1, 5, 7, 8, 9, 13, 31, 32, 33, 63, 64] {
        let mut table = Table::new(10, width).unwrap();
        for _ in 0..200 {
            // Random words stand for any content: the shift moves bits.
            for word in table.words.iter_mut() {
                *word = mix64(*word ^ draw(usize::MAX) as u64);
            }
            let physical = table.physical();
            let free = 1 + draw(physical - 1);
            // Short moves, moves across a block, and moves of many blocks.
            let reach = [3, 70, 1000][draw(3)];
            let pos = free - 1 - draw(free.min(reach));
            let mut want = table.clone();
            want.shift_up_slots(pos, free);
            let before = table.clone();
            table.shift_up_blocks(pos, free);
            assert!(
                table.words == want.words,
                "up: width {width}, slots {pos} .. {free}"
            );
            // And back down: slots `pos + 1 ..= free` to `pos .. free`.
            let mut want = before.clone();
            want.shift_down_slots(pos, free);
            table = before;
            table.shift_down_blocks(pos, free);
            assert!(
                table.words == want.words,
                "down: width {width}, slots {pos} .. {free}"
            );
        }
    }
}
