//! The machine the benchmarks ran on, from `/proc`, `/sys` and `rustc -V`,
//! and the code `bloomlab-core` picks on it at run time. Every field is
//! optional: on another OS it reads "unknown".

use std::fs;
use std::path::Path;
use std::process::Command;

/// One CPU cache level as cpu0 sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    /// 1, 2, 3…
    pub level: u8,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// As the kernel prints it, e.g. `32K`.
    pub size: String,
}

impl Cache {
    /// A short name such as `L1d 32K` or `L3 32768K`.
    pub fn label(&self) -> String {
        let suffix = match self.kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            _ => "",
        };
        format!("L{}{suffix} {}", self.level, self.size)
    }
}

/// What the report says about the machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// CPU model name.
    pub cpu: Option<String>,
    /// Logical CPUs the kernel lists.
    pub cpus: Option<usize>,
    /// Caches of cpu0, by level then kind.
    pub caches: Vec<Cache>,
    /// Total memory, in KiB.
    pub memory_kib: Option<u64>,
    /// Kernel release.
    pub kernel: Option<String>,
    /// `rustc -V`.
    pub rustc: Option<String>,
    /// The instruction-set flags of [`FLAGS`] that `/proc/cpuinfo` lists
    /// for the first processor, in [`FLAGS`]'s order.
    pub flags: Vec<String>,
    /// The code `bloomlab-core` chose on this processor, as
    /// `(what, code)` pairs: the hash, the sectored test, rank and select.
    pub chosen: Vec<(String, String)>,
}

/// The `/proc/cpuinfo` flags the report names: those `bloomlab-core`
/// chooses code by (`aes`, `avx2`, `avx512f` with `avx512vl`, `popcnt`,
/// `bmi1`, `bmi2`).
pub const FLAGS: [&str; 7] = [
    "aes", "avx2", "avx512f", "avx512vl", "popcnt", "bmi1", "bmi2",
];

impl Machine {
    /// Reads the running machine's description.
    pub fn detect() -> Self {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Self {
            cpu: cpu_model(&cpuinfo),
            cpus: cpu_count(&cpuinfo)
                .or_else(|| std::thread::available_parallelism().ok().map(usize::from)),
            caches: caches(Path::new("/sys/devices/system/cpu/cpu0/cache")),
            memory_kib: mem_total_kib(&meminfo),
            kernel: fs::read_to_string("/proc/sys/kernel/osrelease")
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
            rustc: rustc_version(),
            flags: flags(&cpuinfo),
            chosen: chosen(),
        }
    }
}

/// The flags of [`FLAGS`] on the first `flags` line of `/proc/cpuinfo`.
pub fn flags(cpuinfo: &str) -> Vec<String> {
    let Some(listed) = field(cpuinfo, "flags").next() else {
        return Vec::new();
    };
    let listed: Vec<&str> = listed.split_whitespace().collect();
    FLAGS
        .iter()
        .filter(|f| listed.contains(f))
        .map(|f| (*f).to_owned())
        .collect()
}

/// What `bloomlab-core` runs on this processor, asked the way a filter
/// asks: the keyed hash (AES-NI or portable AES), the sectored test of the
/// one-line filters (AVX-512, AVX2 or portable) and rank and select of the
/// quotient filter (BMI2 or portable).
pub fn chosen() -> Vec<(String, String)> {
    use bloomlab_core::AesCmac;
    use bloomlab_core::bits::BitOps;
    use bloomlab_core::hash::SectorTest;
    let aes = if AesCmac::from_seed(1).accelerated() {
        "aes-ni"
    } else {
        "portable"
    };
    [
        ("hash", aes),
        ("sectored test", SectorTest::detect().name()),
        ("rank and select", BitOps::detect().name()),
    ]
    .into_iter()
    .map(|(what, code)| (what.to_owned(), code.to_owned()))
    .collect()
}

/// The first `model name` line of `/proc/cpuinfo` (x86), else `Hardware` or
/// `cpu model` (other architectures).
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "Hardware", "cpu model"]
        .iter()
        .find_map(|key| field(cpuinfo, key).next())
}

/// How many `processor` entries `/proc/cpuinfo` lists.
pub fn cpu_count(cpuinfo: &str) -> Option<usize> {
    Some(field(cpuinfo, "processor").count()).filter(|&n| n > 0)
}

/// `MemTotal` of `/proc/meminfo`, in KiB.
pub fn mem_total_kib(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn field<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = String> + 'a {
    text.lines().filter_map(move |line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

/// The caches under a `/sys/devices/system/cpu/cpuN/cache` directory.
pub fn caches(dir: &Path) -> Vec<Cache> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let read = |path: &Path| fs::read_to_string(path).ok().map(|s| s.trim().to_owned());
    let mut caches: Vec<Cache> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .filter_map(|p| {
            Some(Cache {
                level: read(&p.join("level"))?.parse().ok()?,
                kind: read(&p.join("type"))?,
                size: read(&p.join("size"))?,
            })
        })
        .collect();
    caches.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    caches
}

fn rustc_version() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim().to_owned()).filter(|s| out.status.success() && !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\n\
                           flags\t\t: fpu sse4_2 popcnt aes avx2 bmi1 avx512f avx512bw\n\n\
                           processor\t: 1\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu\n";

    #[test]
    fn reads_model_count_and_memory() {
        assert_eq!(cpu_model(CPUINFO).as_deref(), Some("AMD EPYC 9B14"));
        assert_eq!(cpu_count(CPUINFO), Some(2));
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(cpu_count(""), None);
        let meminfo = "MemTotal:       24684084 kB\nMemFree:        20797844 kB\n";
        assert_eq!(mem_total_kib(meminfo), Some(24_684_084));
        assert_eq!(mem_total_kib("MemFree: 3 kB\n"), None);
    }

    #[test]
    fn reads_the_flags_code_is_chosen_by() {
        // The first processor's line, in the report's order; flags the
        // report does not name are left out.
        assert_eq!(flags(CPUINFO), ["aes", "avx2", "avx512f", "popcnt", "bmi1"]);
        assert!(flags("processor : 0\n").is_empty());
        let chosen = chosen();
        let whats: Vec<&str> = chosen.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(whats, ["hash", "sectored test", "rank and select"]);
    }

    #[test]
    fn cache_labels_are_short() {
        let cache = |level, kind: &str| Cache {
            level,
            kind: kind.to_owned(),
            size: "32K".to_owned(),
        };
        assert_eq!(cache(1, "Data").label(), "L1d 32K");
        assert_eq!(cache(1, "Instruction").label(), "L1i 32K");
        assert_eq!(cache(3, "Unified").label(), "L3 32K");
        assert!(caches(Path::new("/no/such/dir")).is_empty());
    }
}
