//! Progress bars on stderr (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps labelled `what`.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style =
        ProgressStyle::with_template("{prefix:>12} [{bar:40}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(what.to_owned());
    bar
}
