//! REPORT.md and APPENDIX.md: one section per experiment, under a header
//! that says how the run was made (the report opening with its summary, the
//! appendix closing with the run times); and the merge that lets a partial
//! run (`reproduce --only`) replace its own sections of an earlier report
//! and keep all the others. Prose is wrapped ([`wrap`]).
//!
//! Each section is preceded by an HTML comment, invisible when the Markdown
//! is rendered, that names its experiment and the run that wrote it:
//!
//! ```text
//! <!-- bloomlab section: tradeoff; run: reproduce --scale default --seed 2024; seconds: 1.2 -->
//! ## The trade-off table
//! ```
//!
//! A report written before these markers existed is read by its `## `
//! headings, its "Written by" line and its table of run times.

use std::time::Duration;

use crate::scale::Scale;

/// The first line of every report.
const TITLE: &str = "# bloomlab results";

/// The first line of every appendix.
const APPENDIX_TITLE: &str = "# bloomlab results: appendix";

/// Where the appendix's table of run times starts: after the last section,
/// and not part of it.
const RUN_TIMES: &str = "<!-- bloomlab run times -->";

/// The width prose is wrapped to.
const WIDTH: usize = 100;

/// How a section's marker starts.
const MARKER: &str = "<!-- bloomlab section: ";

/// What an experiment contributes to the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    /// Heading of the section.
    pub title: String,
    /// Markdown body: prose, tables, links to the CSV and SVG files.
    pub body: String,
}

impl Section {
    /// A section headed `title`.
    pub fn new(title: impl Into<String>, body: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            body: body.into(),
        }
    }
}

/// A section as it stands in a report, with the run that wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The experiment's name (`tradeoff`); `None` for a section of a report
    /// written before sections carried their name, known by its heading.
    pub experiment: Option<String>,
    /// The command that wrote it, after `bloomlab`:
    /// `reproduce --scale default --seed 2024`.
    pub run: String,
    /// How long the experiment took, if the report says.
    pub seconds: Option<f64>,
    /// Its heading and text.
    pub section: Section,
}

impl Entry {
    /// `self` and `other` are the same experiment's section: by name when
    /// both have one, else by heading.
    fn same_experiment(&self, other: &Entry) -> bool {
        match (&self.experiment, &other.experiment) {
            (Some(a), Some(b)) => a == b,
            _ => self.section.title == other.section.title,
        }
    }
}

/// The report being assembled.
#[derive(Debug)]
pub struct Report {
    /// Its first line: [`TITLE`], or [`APPENDIX_TITLE`].
    title: &'static str,
    /// The command of this run, after `bloomlab`, with its scale and seed.
    run: String,
    /// The sections, in report order: this run's and any kept from an earlier report.
    entries: Vec<Entry>,
}

impl Report {
    /// An empty report for `bloomlab <command>` at `scale` with `seed`.
    pub fn new(command: &str, scale: Scale, seed: u64) -> Self {
        Self {
            title: TITLE,
            run: format!("{command} --scale {scale} --seed {seed}"),
            entries: Vec::new(),
        }
    }

    /// Every section's experiment name (or `""`) and heading, in order.
    pub fn sections(&self) -> Vec<(String, String)> {
        let name = |e: &Entry| e.experiment.clone().unwrap_or_default();
        self.entries
            .iter()
            .map(|e| (name(e), e.section.title.clone()))
            .collect()
    }

    /// An empty appendix for `bloomlab <command>` at `scale` with `seed`: the
    /// same sections, with the long tables, then the run times.
    pub fn appendix(command: &str, scale: Scale, seed: u64) -> Self {
        Self {
            title: APPENDIX_TITLE,
            ..Self::new(command, scale, seed)
        }
    }

    /// Adds `experiment`'s section and how long it took.
    pub fn push(&mut self, experiment: &str, section: Section, took: Duration) {
        self.entries.push(Entry {
            experiment: Some(experiment.to_owned()),
            run: self.run.clone(),
            seconds: Some(took.as_secs_f64()),
            section,
        });
    }

    /// Adds the sections of an `earlier` report that this run did not
    /// write, in their places: the earlier order, with this run's sections
    /// where theirs were, and a section new to the report placed by `order`
    /// (every experiment's name, in report order). Returns the headings of
    /// the sections kept.
    pub fn keep_earlier(&mut self, earlier: Vec<Entry>, order: &[&str]) -> Vec<String> {
        let rank = |e: &Entry| {
            order
                .iter()
                .position(|o| e.experiment.as_deref() == Some(*o))
        };
        let mut fresh = std::mem::take(&mut self.entries);
        let mut kept = Vec::new();
        for old in earlier {
            match fresh.iter().position(|new| new.same_experiment(&old)) {
                Some(i) => self.entries.push(fresh.remove(i)),
                None if self.entries.iter().any(|e| e.same_experiment(&old)) => {}
                None => {
                    kept.push(old.section.title.clone());
                    self.entries.push(old);
                }
            }
        }
        for new in fresh {
            let at = rank(&new).and_then(|r| {
                self.entries
                    .iter()
                    .position(|e| rank(e).is_some_and(|other| other > r))
            });
            self.entries.insert(at.unwrap_or(self.entries.len()), new);
        }
        kept
    }

    /// The whole report as Markdown: the title, the run that wrote it,
    /// `preface` (the summary, or nothing; never read back), the sections,
    /// and — in the appendix — the run times, `total` being this run's.
    /// Prose is wrapped to [`WIDTH`] columns. An appendix leaves out the
    /// sections with nothing in them.
    pub fn render(&self, total: Duration, preface: &str) -> String {
        let one_run = self.entries.iter().all(|e| e.run == self.run);
        let mut out = format!("{}\n\n", self.title);
        let origin = if one_run {
            format!(
                "Written by `bloomlab {}`: every number is measured in that run, beside what \
                 theory predicts for the same parameters, and the same command reproduces it \
                 exactly (apart from timings).",
                self.run
            )
        } else {
            format!(
                "Assembled from more than one run: `bloomlab {}` wrote its sections and the \
                 others are kept from an earlier report, each marked with the command that \
                 wrote it. Sections written at another scale or seed do not compare number \
                 for number.",
                self.run
            )
        };
        out += &format!("{}\n\n", wrap(&origin, WIDTH));
        if !preface.is_empty() {
            out += &format!("{}\n\n", wrap(preface.trim_end(), WIDTH));
        }
        for e in &self.entries {
            if self.title == APPENDIX_TITLE && e.section.body.trim().is_empty() {
                continue;
            }
            let name = e.experiment.as_ref().map(|n| format!("{n}; "));
            let seconds = e.seconds.map(|s| format!("; seconds: {s:.1}"));
            let (name, seconds) = (name.unwrap_or_default(), seconds.unwrap_or_default());
            let (run, title) = (&e.run, &e.section.title);
            out += &format!("{MARKER}{name}run: {run}{seconds} -->\n## {title}\n\n");
            if !one_run {
                out += &format!("*Written by `bloomlab {}`.*\n\n", e.run);
            }
            out += &format!("{}\n\n", wrap(e.section.body.trim_end(), WIDTH));
        }
        if self.title == APPENDIX_TITLE {
            out += &format!("{RUN_TIMES}\n## Run times\n\n");
            let rows = self.entries.iter().map(|e| {
                let took = e.seconds.map_or("–".into(), |s| format!("{s:.1} s"));
                [e.section.title.clone(), format!("`{}`", e.run), took]
            });
            let all = [
                "this run, in all".to_owned(),
                format!("`{}`", self.run),
                format!("{:.1} s", total.as_secs_f64()),
            ];
            out.push_str(&crate::table::markdown(
                &["section", "written by", "run time"],
                rows.chain([all]),
            ));
        }
        out
    }
}

/// The run's identity, one line: the commit (`-dirty` if tracked files
/// outside the output folder `out` differ from it), the UTC date, the CPU
/// model and the instructions bloomlab-core's code chose on it. Whatever
/// cannot be read says `unknown`. Not compared between runs.
pub fn identity(out: &std::path::Path) -> String {
    use bloomlab_core::{AesCmac, bits::BitOps, hash::SectorTest};
    let run = |args: &[&str], program: &str| {
        std::process::Command::new(program)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
    };
    let git = |args: &[&str]| run(args, "git");
    let commit = git(&["rev-parse", "--short", "HEAD"]).map(|hash| {
        // The output folder is rewritten by the run itself.
        let top = git(&["rev-parse", "--show-toplevel"]).map(std::path::PathBuf::from);
        let inside = top.zip(out.canonicalize().ok()).and_then(|(top, out)| {
            let top = top.canonicalize().ok()?;
            Some(out.strip_prefix(top).ok()?.to_string_lossy().into_owned())
        });
        let exclude = inside.map(|dir| format!(":(exclude){dir}"));
        let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--", "."];
        status.extend(exclude.as_deref().filter(|d| d.len() > ":(exclude)".len()));
        match git(&status) {
            Some(changes) if changes.is_empty() => hash,
            _ => format!("{hash}-dirty"),
        }
    });
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim() == "model name")
                .map(|(_, v)| v.trim().to_owned())
        });
    let aes = match AesCmac::from_key([0, 0]).accelerated() {
        true => "AES-NI",
        false => "no AES-NI",
    };
    let unknown = |v: Option<String>| v.unwrap_or_else(|| "unknown".into());
    format!(
        "**Run:** commit `{}`, {} UTC, {} ({aes}; vector code: {}, {}).",
        unknown(commit),
        unknown(run(&["-u", "+%Y-%m-%d %H:%M"], "date")),
        unknown(cpu),
        SectorTest::detect().name(),
        BitOps::detect().name()
    )
}

/// `text` with every line of prose longer than `width` broken at spaces;
/// tables, headings, images, HTML comments and code blocks are left as they
/// are, and a list item's continuation lines are indented under its text.
/// A break never puts at the start of a line a word Markdown would read as
/// the start of a block (`- x`, `# x`, `1. x`, `| x`, `> x`). Lines no longer
/// than `width` are untouched, so wrapping twice changes nothing.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let start = line.trim_start();
        let block = start.starts_with(['|', '#', '<']) || start.starts_with("![");
        let verbatim = fenced || line.chars().count() <= width || block;
        if verbatim {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = " ".repeat(list_indent(line));
        let (mut rest, mut room) = (line, width);
        while let Some(i) = break_at(rest, room) {
            out.push_str(rest[..i].trim_end());
            out.push('\n');
            out.push_str(&indent);
            rest = rest[i..].trim_start();
            room = width - indent.len().min(width / 2);
        }
        out.push_str(rest);
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// Columns a list item's text starts at (`- `, `* `, `12. `), or 0.
fn list_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start().len();
    let body = &line[lead..];
    if body.starts_with("- ") || body.starts_with("* ") {
        return lead + 2;
    }
    let digits = body.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && body[digits..].starts_with(". ") {
        return lead + digits + 2;
    }
    0
}

/// Where to break `line` so that its first part is at most `room`
/// characters (or, for a longer word, as short as it can be): the byte
/// index of the first character after the space; `None` if it fits.
fn break_at(line: &str, room: usize) -> Option<usize> {
    if line.chars().count() <= room {
        return None;
    }
    let starts_block = |word: &str| {
        let digits = word.chars().take_while(char::is_ascii_digit).count();
        word.starts_with(['-', '+', '*', '#', '>', '|', '='])
            || (digits > 0 && word[digits..].starts_with(['.', ')']))
    };
    let spaces = line
        .char_indices()
        .filter(|&(i, c)| c == ' ' && i > 0 && !line[..i].trim().is_empty())
        .map(|(i, _)| i + 1)
        .filter(|&i| i < line.len() && !starts_block(&line[i..]));
    let mut best = None;
    for i in spaces {
        if line[..i].trim_end().chars().count() <= room || best.is_none() {
            best = Some(i);
        } else {
            break;
        }
    }
    best
}

/// The sections of a report or an appendix `text`, with the run that wrote
/// each: by their markers, or, in a report written before markers, by their
/// `## ` headings. The summary before the first section and the run times
/// after the last are left out: a run writes them anew.
///
/// # Errors
///
/// A message if `text` is not a bloomlab report or appendix, or a marker
/// cannot be read.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let first = text.lines().next().map(str::trim_end);
    if first != Some(TITLE) && first != Some(APPENDIX_TITLE) {
        return Err(format!("it does not start with '{TITLE}'"));
    }
    let text = text
        .split_once(&format!("\n{RUN_TIMES}"))
        .map_or(text, |(s, _)| s);
    if text.lines().any(|l| l.starts_with(MARKER)) {
        parse_marked(text)
    } else {
        Ok(parse_headings(text))
    }
}

/// A report whose sections carry markers.
fn parse_marked(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for piece in text.split(&format!("\n{MARKER}")).skip(1) {
        let (meta, rest) = piece.split_once(" -->\n").ok_or_else(|| {
            format!("a section marker does not end with '-->': {MARKER}{piece:.60}")
        })?;
        let marker = format!("'{MARKER}{meta} -->'");
        let (mut experiment, mut run, mut seconds) = (None, None, None);
        for field in meta.split("; ") {
            match field.split_once(": ") {
                Some(("run", r)) => run = Some(r.to_owned()),
                Some(("seconds", s)) => seconds = s.parse().ok(),
                None if experiment.is_none() && run.is_none() => {
                    experiment = Some(field.to_owned());
                }
                _ => return Err(format!("cannot read the section marker {marker}")),
            }
        }
        let run = run.ok_or_else(|| format!("the section marker {marker} names no run"))?;
        let (heading, body) = rest.split_once('\n').unwrap_or((rest, ""));
        let title = heading
            .strip_prefix("## ")
            .ok_or_else(|| format!("no '## ' heading after the section marker {marker}"))?;
        // A section of a mixed report opens with the line naming its run:
        // the renderer adds it again.
        let written = format!("*Written by `bloomlab {run}`.*");
        let body = body.trim_start_matches('\n');
        let body = body
            .strip_prefix(&written)
            .unwrap_or(body)
            .trim_start_matches('\n');
        entries.push(Entry {
            experiment,
            run,
            seconds,
            section: Section::new(title, body.trim_end()),
        });
    }
    Ok(entries)
}

/// A report written before sections carried markers: its `## ` headings,
/// the run of its "Written by" line, the times of its table.
fn parse_headings(text: &str) -> Vec<Entry> {
    let run = text
        .split_once("Written by `bloomlab ")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map_or_else(|| "(an earlier run)".to_owned(), |(run, _)| run.to_owned());
    let seconds = |title: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("| {title} | ")))
            .and_then(|rest| rest.strip_suffix(" s |"))
            .and_then(|s| s.parse().ok())
    };
    let mut entries: Vec<Entry> = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            entries.push(Entry {
                experiment: None,
                run: run.clone(),
                seconds: seconds(title),
                section: Section::new(title, ""),
            });
        } else if let Some(e) = entries.last_mut() {
            e.section.body.push_str(line);
            e.section.body.push('\n');
        }
    }
    for e in &mut entries {
        e.section.body = e.section.body.trim().to_owned();
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: [&str; 3] = ["tradeoff", "fpr", "space"];

    /// The body of the trade-off section, with a heading of its own.
    const T_BODY: &str = "t body\n\n### sub\n\nmore";

    /// `r` with the sections (experiment, heading, body), the first taking
    /// a second, the next two, and so on.
    fn pushed(mut r: Report, sections: &[(&str, &str, &str)]) -> Report {
        for (i, &(name, title, body)) in (1..).zip(sections) {
            r.push(name, Section::new(title, body), Duration::from_secs(i));
        }
        r
    }

    fn titles(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.section.title.as_str()).collect()
    }

    fn full_report() -> String {
        let r = pushed(
            Report::new("reproduce", Scale::Default, 2024),
            &[
                ("tradeoff", "Trade-off", T_BODY),
                ("fpr", "FPR", "f body"),
                ("space", "Space", "s body"),
            ],
        );
        r.render(Duration::from_secs(6), "## Summary\n\nshort")
    }

    #[test]
    fn a_report_reads_back_as_written() {
        let text = full_report();
        assert!(text.starts_with(
            "# bloomlab results\n\nWritten by `bloomlab reproduce --scale default --seed 2024`:"
        ));
        let entries = parse(&text).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].experiment.as_deref(), Some("tradeoff"));
        assert_eq!(entries[0].run, "reproduce --scale default --seed 2024");
        assert_eq!(entries[0].seconds, Some(1.0));
        assert_eq!(entries[0].section, Section::new("Trade-off", T_BODY));
        // The summary before the sections is not read back as part of one;
        // the run times are the appendix's.
        assert_eq!(entries[2].section, Section::new("Space", "s body"));
        assert!(text.contains("## Summary\n\nshort\n"));
        assert!(text.find("## Summary") < text.find("## Trade-off"));
        assert!(!text.contains("Run times"));
    }

    #[test]
    fn an_appendix_leaves_out_empty_sections_and_reads_back() {
        let table = "| a |\n|---|\n| 1 |";
        let r = pushed(
            Report::appendix("reproduce", Scale::Quick, 1),
            &[("tradeoff", "Trade-off", table), ("fpr", "FPR", "")],
        );
        let text = r.render(Duration::from_secs(3), "");
        assert!(text.starts_with("# bloomlab results: appendix\n"));
        assert!(!text.contains("## FPR"), "{text}");
        // Every experiment's run time, after the sections and not read back
        // as part of the last.
        assert!(
            text.contains("| FPR | `reproduce --scale quick --seed 1` | 2.0 s |"),
            "{text}"
        );
        assert!(text.contains("| this run, in all | `reproduce --scale quick --seed 1` | 3.0 s |"));
        let back = parse(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].section, Section::new("Trade-off", table));
    }

    #[test]
    fn prose_is_wrapped_and_nothing_else() {
        let long = "word ".repeat(30).trim_end().to_owned();
        let table = format!("| {long} |");
        let text = format!("{long}\n\n- {long}\n\n{table}\n```\n{long}\n```");
        let wrapped = wrap(&text, 40);
        for line in wrapped.lines() {
            assert!(line.len() <= 40 || line == table || line == long, "{line}");
        }
        assert!(
            wrapped.contains("\n  word"),
            "list items continue indented: {wrapped}"
        );
        assert!(wrapped.contains(&table) && wrapped.contains(&format!("```\n{long}\n```")));
        assert_eq!(
            wrap(&wrapped, 40),
            wrapped,
            "wrapping twice changes nothing"
        );
        // Words are kept whole and in order.
        let words = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(words(&wrapped), words(&text));
        // A break never starts a line with a list marker or a heading.
        let x17 = "x ".repeat(17);
        let risky = format!("{x17} - not a list # nor a heading 1. nor this");
        for line in wrap(&risky, 36).lines().skip(1) {
            assert!(
                !line.starts_with(['-', '#']) && !line.starts_with("1."),
                "{line}"
            );
        }
    }

    #[test]
    fn a_partial_run_replaces_its_sections_and_keeps_the_others() {
        let only_fpr = Report::new("reproduce --only fpr", Scale::Quick, 7);
        let mut r = pushed(only_fpr, &[("fpr", "FPR", "new f body")]);
        let kept = r.keep_earlier(parse(&full_report()).unwrap(), &ORDER);
        assert_eq!(kept, ["Trade-off", "Space"]);
        let text = r.render(Duration::from_secs(1), "");
        assert!(text.contains("Assembled from more than one run"), "{text}");
        let marked = "*Written by `bloomlab reproduce --scale default --seed 2024`.*\n\nt body";
        assert!(text.contains(marked), "{text}");
        let again = parse(&text).unwrap();
        assert_eq!(titles(&again), ["Trade-off", "FPR", "Space"]);
        assert_eq!(again[1].section.body, "new f body");
        assert_eq!(again[0].section.body, T_BODY);
        assert_eq!(again[2].run, "reproduce --scale default --seed 2024");

        // Another partial run replaces its sections in the merged report.
        let mut r = pushed(
            Report::new("reproduce --only tradeoff,space", Scale::Quick, 7),
            &[("tradeoff", "Trade-off", "t2"), ("space", "Space", "s2")],
        );
        assert_eq!(r.keep_earlier(again, &ORDER), ["FPR"]);
        assert_eq!(titles(&r.entries), ["Trade-off", "FPR", "Space"]);
        assert_eq!(r.entries[1].section.body, "new f body");
    }

    #[test]
    fn a_new_section_goes_in_report_order() {
        let only_fpr = Report::new("reproduce --only fpr", Scale::Quick, 7);
        let mut r = pushed(only_fpr, &[("fpr", "FPR", "f")]);
        let mut earlier = parse(&full_report()).unwrap();
        earlier.remove(1);
        assert_eq!(r.keep_earlier(earlier, &ORDER).len(), 2);
        assert_eq!(titles(&r.entries), ["Trade-off", "FPR", "Space"]);
    }

    #[test]
    fn a_report_without_markers_is_read_by_its_headings() {
        let text = "# bloomlab results\n\nWritten by `bloomlab reproduce --scale default --seed 2024`. Every number …\n\n\
                    | experiment | run time |\n|---|---|\n| Trade-off | 1.2 s |\n| FPR | 4.6 s |\n| total | 5.8 s |\n\n\
                    ## Trade-off\n\nt body\n\n### sub\n\nmore\n\n## FPR\n\nf body\n";
        let entries = parse(text).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].experiment, None);
        assert_eq!(entries[0].run, "reproduce --scale default --seed 2024");
        assert_eq!(entries[0].seconds, Some(1.2));
        assert_eq!(entries[0].section, Section::new("Trade-off", T_BODY));
        // Matched to this run's section by heading.
        let only_tradeoff = Report::new("reproduce --only tradeoff", Scale::Quick, 1);
        let mut r = pushed(only_tradeoff, &[("tradeoff", "Trade-off", "new")]);
        assert_eq!(r.keep_earlier(entries, &ORDER), ["FPR"]);
        assert_eq!(r.entries[0].section.body, "new");
        assert_eq!(r.entries[0].experiment.as_deref(), Some("tradeoff"));
    }

    #[test]
    fn a_file_that_is_not_a_report_is_refused() {
        assert!(parse("# My notes\n\n## Trade-off\n").is_err());
        assert!(parse("").is_err());
        let broken = full_report().replace(
            "; run: reproduce --scale default --seed 2024; seconds: 1.0",
            "",
        );
        assert!(parse(&broken).unwrap_err().contains("names no run"));
    }
}
