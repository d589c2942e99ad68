//! What reaching a session through a handle costs per call, for counting instructions with
//! callgrind (load-independent):
//!
//! ```text
//! cargo build --release -p karrow-native --example handle_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/examples/handle_cost table
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/examples/handle_cost pointer
//! ```
//! `table` is the generation-checked table of `handles` with the session behind `dyn
//! Session`; `pointer` is the former scheme (the handle a pointer to a tagged box, the tag
//! compared, a direct call), kept here only as the baseline. Both make `CALLS` per-record
//! decode calls on a session that returns a fixed image; the difference of the two totals
//! divided by `CALLS` is the per-call cost of the checks. `json-table` and `json-direct`
//! decode a small JSON bid per call, through a handle or by calling the session directly:
//! the same difference against the cost of a real decode.

use std::hint::black_box;

use karrow_native::handles;
use karrow_native::json::JsonDecodeSession;
use karrow_native::session::{OneValueRows, Session, SessionKind};
use karrow_native::NativeError;

const CALLS: u32 = 1_000_000;

/// A decoder whose every value gives the same 32-byte image.
struct Fixed {
    image: Vec<u8>,
}

impl Session for Fixed {
    fn kind(&self) -> SessionKind {
        SessionKind::AvroDecoder
    }

    fn retained_bytes(&self) -> usize {
        self.image.capacity()
    }

    #[inline(never)]
    fn decode_one(
        &mut self,
        value: Option<&[u8]>,
    ) -> Result<Option<OneValueRows<'_>>, NativeError> {
        self.image[0] = value.map_or(0, <[u8]>::len) as u8;
        Ok(Some([&self.image, &[]]))
    }
}

/// The former handle: a pointer to a tagged box.
struct Tagged {
    tag: u64,
    value: Fixed,
}

const TAG: u64 = 0x6b61_7272_6f77_0001;

#[inline(never)]
fn call_pointer(handle: i64, value: &[u8]) -> Result<usize, NativeError> {
    // SAFETY: `handle` is the live box made in `main`, used by this thread only.
    let slot = unsafe { &mut *(handle as *mut Tagged) };
    if slot.tag != TAG {
        return Err(NativeError::InvalidCall("wrong tag".into()));
    }
    let parts = slot.value.decode_one(Some(value))?;
    Ok(parts.map_or(0, |p| p[0].len() + p[1].len()))
}

#[inline(never)]
fn call_table(handle: i64, value: &[u8]) -> Result<usize, NativeError> {
    handles::with_session(handle, |session| {
        let parts = session.decode_one(Some(value))?;
        Ok(parts.map_or(0, |p| p[0].len() + p[1].len()))
    })
}

fn main() -> Result<(), NativeError> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let value = [7u8; 24];
    let fixed = || Fixed { image: vec![0; 32] };
    let mut total = 0usize;
    match mode.as_str() {
        "table" => {
            let handle = handles::open(Box::new(fixed()))?;
            for _ in 0..CALLS {
                total += call_table(black_box(handle), black_box(&value))?;
            }
            handles::close(handle)?;
        }
        "pointer" => {
            let handle = Box::into_raw(Box::new(Tagged {
                tag: TAG,
                value: fixed(),
            })) as i64;
            for _ in 0..CALLS {
                total += call_pointer(black_box(handle), black_box(&value))?;
            }
            // SAFETY: made by `Box::into_raw` above, freed once.
            drop(unsafe { Box::from_raw(handle as *mut Tagged) });
        }
        "json-table" | "json-direct" => {
            let config = r#"{"row_type":{"type":"ROW","nullable":false,"fields":[
                {"name":"auction","type":{"type":"BIGINT","nullable":true}},
                {"name":"bidder","type":{"type":"BIGINT","nullable":true}},
                {"name":"price","type":{"type":"BIGINT","nullable":true}},
                {"name":"channel","type":{"type":"VARCHAR","nullable":true,"length":2147483647}},
                {"name":"url","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}}"#;
            let bid = br#"{"auction":1007,"bidder":2001,"price":8812,"channel":"Google","url":"https://www.nexmark.com/abc/item.htm?query=1"}"#;
            let mut session = JsonDecodeSession::open(config)?;
            if mode == "json-table" {
                let handle = handles::open(Box::new(session))?;
                for _ in 0..CALLS {
                    total += call_table(black_box(handle), black_box(bid))?;
                }
                handles::close(handle)?;
            } else {
                for _ in 0..CALLS {
                    let rows = session.decode_message(black_box(bid))?;
                    total += rows.map_or(0, |r| r.len());
                }
            }
        }
        _ => {
            return Err(NativeError::InvalidCall(
                "usage: handle_cost table|pointer|json-table|json-direct".into(),
            ))
        }
    }
    println!("{mode}: {CALLS} calls, {total} bytes");
    Ok(())
}
