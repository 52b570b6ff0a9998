//! The memory guard of a run: what the process may grow by once the scenario is built, and
//! how much memory the system still offers.

/// The value of `key` (a line `key   N kB` of a `/proc` file's `text`), in bytes.
fn kb(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024)
}

/// Bytes this process can still allocate, and what limits it; None where the system does
/// not say (not Linux).
pub fn available_memory() -> Option<(u64, &'static str)> {
    let mut best: Option<(u64, &'static str)> = None;
    let mut offer = |bytes: u64, why: &'static str| {
        if best.is_none_or(|(b, _)| bytes < b) {
            best = Some((bytes, why));
        }
    };
    if let Some(avail) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| kb(&t, "MemAvailable:")) {
        offer(avail, "the memory available");
    }
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    if let Some(line) = limits.lines().find(|l| l.starts_with("Max address space")) {
        if let Some(Ok(soft)) = line["Max address space".len()..].split_whitespace().next().map(str::parse::<u64>) {
            let mapped = std::fs::read_to_string("/proc/self/status").ok().and_then(|t| kb(&t, "VmSize:")).unwrap_or(0);
            offer(soft.saturating_sub(mapped), "the address-space limit (ulimit -v) less what the process maps");
        }
    }
    let cgroup = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok().and_then(|t| t.trim().parse::<u64>().ok());
    if let (Some(max), Some(current)) = (cgroup("memory.max"), cgroup("memory.current")) {
        offer(max.saturating_sub(current), "the cgroup's memory limit");
    }
    best
}

/// The memory guard of a run: what the process may grow by once the scenario is built.
/// The estimate made before the build bounds the structures that are allocated up front;
/// packets in the network have no bound a scenario can be held to beforehand (every buffer
/// full is far more than most runs ever hold, so refusing on it would refuse DUMBBELL-10000),
/// so the run looks at its own size every `MEMORY_CHECK_EVENTS` events
/// and stops, naming the fullest link, if it has grown past the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryGuard {
    /// Resident bytes when the guard was made (before the build).
    pub baseline: u64,
    /// Bytes the process may grow by.
    pub limit: u64,
    /// What set the limit, for the message.
    pub why: &'static str,
}

impl MemoryGuard {
    /// The guard for a run that may grow by `max_memory` bytes (None: by what the system has
    /// available); None where the system gives no limit or no resident size (not Linux).
    pub fn new(max_memory: Option<u64>) -> Option<MemoryGuard> {
        let (limit, why) = match max_memory {
            Some(b) => (b, "the limit given"),
            None => available_memory()?,
        };
        Some(MemoryGuard { baseline: resident_bytes()?, limit, why })
    }

    /// The growth, the limit and its reason if the process has grown past the limit.
    pub fn exceeded(&self) -> Option<(u64, u64, &'static str)> {
        let grown = resident_bytes()?.saturating_sub(self.baseline);
        (grown > self.limit).then_some((grown, self.limit, self.why))
    }
}

/// This process's resident memory, bytes (Linux: `VmRSS` in `/proc/self/status`).
fn resident_bytes() -> Option<u64> {
    kb(&std::fs::read_to_string("/proc/self/status").ok()?, "VmRSS:")
}
