//! Peak resident memory of this process (Linux `/proc`), resettable per operation.

/// Resets the peak RSS (`VmHWM`) to the current RSS; false where the kernel refuses.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak RSS (`VmHWM`) in KiB, when `/proc` has it.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
