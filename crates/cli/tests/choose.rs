//! `bloomlab-cli choose` as a user runs it; the answers themselves are
//! bloomlab-choose's to test.

use std::process::Command;

#[test]
fn choose_recommends_and_refuses() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bloomlab-cli"))
            .arg("choose")
            .args(args)
            .output()
            .expect("the bloomlab-cli binary runs")
    };
    let out = run(&["--items", "1000", "--fpr", "0.01"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Recommendation: "), "{text}");
    let out = run(&["--items", "1000", "--fpr", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("bloomlab-cli choose: "), "{err}");
}
