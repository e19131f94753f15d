//! REPORT.md: one section per experiment, under a header that says how the
//! run was made.

use std::fmt::Write as _;
use std::time::Duration;

use crate::scale::Scale;

/// What an experiment contributes to the report.
#[derive(Debug, Clone)]
pub struct Section {
    /// Heading of the section.
    pub title: String,
    /// Markdown body: prose, tables, links to the CSV and SVG files.
    pub body: String,
}

/// The report being assembled.
#[derive(Debug)]
pub struct Report {
    command: String,
    scale: Scale,
    seed: u64,
    sections: Vec<(Section, Duration)>,
}

impl Report {
    /// An empty report for `bloomlab <command>` at `scale` with `seed`.
    pub fn new(command: &str, scale: Scale, seed: u64) -> Self {
        Self {
            command: command.to_owned(),
            scale,
            seed,
            sections: Vec::new(),
        }
    }

    /// Adds an experiment's section and how long it took.
    pub fn push(&mut self, section: Section, took: Duration) {
        self.sections.push((section, took));
    }

    /// The whole report as Markdown.
    pub fn render(&self, total: Duration) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# bloomlab results\n");
        let _ = writeln!(
            out,
            "Written by `bloomlab {} --scale {} --seed {}`. Every number below is measured \
             in that run, next to what theory predicts for the same parameters. Run times vary \
             from machine to machine; everything else is reproduced exactly by the same command.\n",
            self.command, self.scale, self.seed
        );
        let _ = writeln!(out, "| experiment | run time |\n|---|---|");
        for (s, took) in &self.sections {
            let _ = writeln!(out, "| {} | {:.1} s |", s.title, took.as_secs_f64());
        }
        let _ = writeln!(out, "| total | {:.1} s |\n", total.as_secs_f64());
        for (s, _) in &self.sections {
            let _ = writeln!(out, "## {}\n\n{}", s.title, s.body.trim_end());
            out.push('\n');
        }
        out
    }
}
