//! The handle table: generations make stale and forged handles errors, per-kind counts.

use super::*;

/// A session that counts its calls and keeps a buffer that grows by one byte per call.
struct Probe {
    kind: SessionKind,
    calls: u32,
    buffer: Vec<u8>,
}

impl Probe {
    fn boxed(kind: SessionKind) -> Box<dyn Session> {
        Box::new(Probe {
            kind,
            calls: 0,
            buffer: Vec::new(),
        })
    }
}

impl Session for Probe {
    fn kind(&self) -> SessionKind {
        self.kind
    }

    fn retained_bytes(&self) -> usize {
        self.buffer.capacity()
    }

    fn encode_one(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.calls += 1;
        self.buffer.extend_from_slice(image);
        Ok(&self.buffer)
    }
}

fn calls(handle: i64) -> Result<u32, NativeError> {
    with_session(handle, |session| {
        session.encode_one(b"x")?;
        // SAFETY: every session these tests open is a `Probe`, so the trait object's data
        // pointer points at a live `Probe`, borrowed for as long as `session` is.
        let probe = unsafe { &*(session as *mut dyn Session as *mut Probe) };
        Ok(probe.calls)
    })
}

fn index_of(handle: i64) -> i64 {
    handle & 0xffff_ffff
}

fn generation_of_handle(handle: i64) -> i64 {
    handle >> 32
}

#[test]
fn a_handle_reaches_its_session_until_closed() {
    let handle = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    assert_ne!(handle, 0);
    assert_eq!(calls(handle).unwrap(), 1);
    assert_eq!(calls(handle).unwrap(), 2);
    close(handle).unwrap();
    let error = calls(handle).unwrap_err().to_string();
    assert!(error.contains("names no open native session"), "{error}");
    assert!(calls(0).unwrap_err().to_string().contains("closed (0)"));
    close(0).unwrap();
}

#[test]
fn a_stale_handle_of_a_reused_slot_is_an_error_and_leaves_the_new_session_alone() {
    let first = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    close(first).unwrap();
    let second = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    // Whatever slot the second session got, the handle of its previous generation is
    // stale: the case of `first` when the slot was reused.
    let stale = (generation_of_handle(second) - 1) << 32 | index_of(second);
    for old in [first, stale] {
        assert!(
            calls(old).is_err(),
            "stale handle {old:#x} reached {second:#x}"
        );
        assert!(
            close(old).is_err(),
            "stale handle {old:#x} closed {second:#x}"
        );
    }
    assert_eq!(
        calls(second).unwrap(),
        1,
        "the live session was not touched"
    );
    close(second).unwrap();
}

#[test]
fn closing_twice_is_an_error_not_a_double_free() {
    let handle = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    close(handle).unwrap();
    let error = close(handle).unwrap_err().to_string();
    assert!(error.contains("names no open native session"), "{error}");
}

#[test]
fn forged_handles_are_errors() {
    let live = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    let heap = Box::new(0u64);
    let forged = [
        1,
        0x1000,
        -8,
        i64::MAX,
        i64::MIN,
        &*heap as *const u64 as i64,
        // The live slot at generations it never had.
        index_of(live),
        (generation_of_handle(live) + 1) << 32 | index_of(live),
        // An index beyond every allocated chunk, and one beyond the table.
        1 << 32 | (CHUNK_SLOTS * (MAX_CHUNKS - 1)) as i64,
        1 << 32 | 0xffff_ffff,
    ];
    // (0 is the closed handle, whose close is a no-op by contract.)
    for handle in forged.into_iter().filter(|h| *h != 0) {
        assert!(calls(handle).is_err(), "forged handle {handle:#x} was used");
        assert!(
            close(handle).is_err(),
            "forged handle {handle:#x} was closed"
        );
    }
    assert_eq!(calls(live).unwrap(), 1);
    close(live).unwrap();
}

#[test]
fn a_call_the_kind_does_not_answer_names_the_kind() {
    let handle = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
    let error = with_session(handle, |session| {
        session.decode_one(Some(b"{}")).map(|_| ())
    })
    .unwrap_err()
    .to_string();
    assert_eq!(error, "invalid call: a JSON encoder does not decode");
    close(handle).unwrap();
}

#[test]
fn stats_count_live_handles_and_retained_bytes_per_kind() {
    // No other test opens this kind, so its counts are this test's alone.
    let kind = usize::from(SessionKind::ProtobufEncoder.code());
    let before = stats();
    assert_eq!(before.live_handles[kind], 0);
    let handles: Vec<i64> = (0..3)
        .map(|_| open(Probe::boxed(SessionKind::ProtobufEncoder)).unwrap())
        .collect();
    for handle in &handles {
        calls(*handle).unwrap();
    }
    let during = stats();
    assert_eq!(during.live_handles[kind], 3);
    assert!(during.retained_bytes[kind] >= 3, "{during:?}");
    for handle in handles {
        close(handle).unwrap();
    }
    let after = stats();
    assert_eq!(after.live_handles[kind], 0);
    assert_eq!(after.retained_bytes[kind], 0);
}

#[test]
fn sessions_opened_used_and_closed_from_many_threads_stay_apart() {
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                for _ in 0..2_000 {
                    let handle = open(Probe::boxed(SessionKind::JsonEncoder)).unwrap();
                    assert_eq!(calls(handle).unwrap(), 1);
                    assert_eq!(calls(handle).unwrap(), 2);
                    close(handle).unwrap();
                    assert!(calls(handle).is_err());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}
