//! Kafka record batches (v2) and Fetch v12 responses written byte by byte, for seeds.

/// One record of a seed batch.
pub struct SeedRecord<'a> {
    /// Key, or `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// Value, or `None` for a tombstone.
    pub value: Option<&'a [u8]>,
    /// Headers (key, value).
    pub headers: &'a [(&'a [u8], Option<&'a [u8]>)],
}

fn varint(v: i64, out: &mut Vec<u8>) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn uvarint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn bytes_or_null(b: Option<&[u8]>, out: &mut Vec<u8>) {
    match b {
        None => varint(-1, out),
        Some(b) => {
            varint(b.len() as i64, out);
            out.extend_from_slice(b);
        }
    }
}

/// The records part of a batch (uncompressed).
fn records(records: &[SeedRecord<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let mut body = vec![0u8]; // attributes
        varint(i as i64 * 10, &mut body); // timestamp delta
        varint(i as i64, &mut body); // offset delta
        bytes_or_null(r.key, &mut body);
        bytes_or_null(r.value, &mut body);
        varint(r.headers.len() as i64, &mut body);
        for (k, v) in r.headers {
            varint(k.len() as i64, &mut body);
            body.extend_from_slice(k);
            bytes_or_null(*v, &mut body);
        }
        varint(body.len() as i64, &mut out);
        out.extend_from_slice(&body);
    }
    out
}

/// Compresses a batch's records part with Kafka codec `codec` (0 none, 1 gzip, 2 snappy in
/// Xerial framing as Kafka's Java producer writes it, 3 lz4 frame).
pub fn compress(codec: i16, input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    match codec {
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(input).expect("writing to memory");
            e.finish().expect("writing to memory")
        }
        2 => {
            let block = snap::raw::Encoder::new()
                .compress_vec(input)
                .expect("snappy");
            let mut out = vec![
                0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
            ];
            out.extend_from_slice(&(block.len() as u32).to_be_bytes());
            out.extend_from_slice(&block);
            out
        }
        3 => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(input).expect("writing to memory");
            e.finish().expect("writing to memory")
        }
        _ => input.to_vec(),
    }
}

/// A v2 record batch at `base_offset` with its CRC32C; `attributes` carries the codec (low
/// three bits), transactional (0x10) and control (0x20) flags.
pub fn batch(
    base_offset: i64,
    attributes: i16,
    producer_id: i64,
    recs: &[SeedRecord<'_>],
) -> Vec<u8> {
    let records = compress(attributes & 7, &records(recs));
    let mut after_crc = Vec::new();
    after_crc.extend_from_slice(&attributes.to_be_bytes());
    after_crc.extend_from_slice(&(recs.len().max(1) as i32 - 1).to_be_bytes()); // last offset delta
    after_crc.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // base timestamp
    after_crc.extend_from_slice(&1_700_000_000_100i64.to_be_bytes()); // max timestamp
    after_crc.extend_from_slice(&producer_id.to_be_bytes());
    after_crc.extend_from_slice(&0i16.to_be_bytes()); // producer epoch
    after_crc.extend_from_slice(&0i32.to_be_bytes()); // base sequence
    after_crc.extend_from_slice(&(recs.len() as i32).to_be_bytes());
    after_crc.extend_from_slice(&records);
    let mut out = Vec::new();
    out.extend_from_slice(&base_offset.to_be_bytes());
    out.extend_from_slice(&((after_crc.len() + 9) as i32).to_be_bytes()); // batch length
    out.extend_from_slice(&0i32.to_be_bytes()); // partition leader epoch
    out.push(2); // magic
    out.extend_from_slice(&crc32c::crc32c(&after_crc).to_be_bytes());
    out.extend_from_slice(&after_crc);
    out
}

/// A Fetch v12 response with one topic `t` of one partition holding `records`, correlation
/// id 7, and the aborted transactions given.
pub fn fetch_response(records: &[u8], aborted: &[(i64, i64)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&7i32.to_be_bytes());
    uvarint(0, &mut out); // header tagged fields
    out.extend_from_slice(&0i32.to_be_bytes()); // throttle
    out.extend_from_slice(&0i16.to_be_bytes()); // error
    out.extend_from_slice(&0i32.to_be_bytes()); // session
    uvarint(2, &mut out); // one topic
    uvarint(2, &mut out);
    out.push(b't');
    uvarint(2, &mut out); // one partition
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&0i16.to_be_bytes());
    out.extend_from_slice(&100i64.to_be_bytes()); // high watermark
    out.extend_from_slice(&90i64.to_be_bytes()); // last stable
    out.extend_from_slice(&0i64.to_be_bytes()); // log start
    uvarint(aborted.len() as u64 + 1, &mut out);
    for (producer, first) in aborted {
        out.extend_from_slice(&producer.to_be_bytes());
        out.extend_from_slice(&first.to_be_bytes());
        uvarint(0, &mut out);
    }
    out.extend_from_slice(&(-1i32).to_be_bytes()); // preferred replica
    uvarint(records.len() as u64 + 1, &mut out);
    out.extend_from_slice(records);
    uvarint(0, &mut out); // partition tagged fields
    uvarint(0, &mut out); // topic tagged fields
    uvarint(0, &mut out); // response tagged fields
    out
}

/// A few batches: plain, each codec, transactional with a control batch, keys and headers.
pub fn seed_batches() -> Vec<Vec<u8>> {
    let headers: &[(&[u8], Option<&[u8]>)] = &[(b"h", Some(b"v")), (b"n", None)];
    let recs = [
        SeedRecord {
            key: Some(b"k1"),
            value: Some(b"v1"),
            headers,
        },
        SeedRecord {
            key: None,
            value: Some(b"value two"),
            headers: &[],
        },
        SeedRecord {
            key: Some(b"k3"),
            value: None,
            headers: &[],
        },
    ];
    let mut out = Vec::new();
    for codec in 0..4 {
        out.push(batch(0, codec, -1, &recs));
    }
    let mut txn = batch(0, 0x10, 42, &recs);
    txn.extend(batch(
        3,
        0x30,
        42,
        &[SeedRecord {
            key: Some(&[0, 0, 0, 0]),
            value: Some(&[0, 0, 0, 0, 0, 0]),
            headers: &[],
        }],
    ));
    txn.extend(batch(4, 0, -1, &recs[..1]));
    out.push(txn);
    out
}

/// Seeds of the record-batch target: flags byte, offsets, optional aborted transaction, then
/// the batches.
pub fn record_batch_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, batches) in seed_batches().into_iter().enumerate() {
        for flags in [0u8, 1, 2, 5] {
            let mut seed = vec![flags, i as u8 % 2, 100];
            if flags & 4 != 0 {
                seed.extend([42, 0]);
            }
            seed.extend_from_slice(&batches);
            seeds.push(seed);
        }
    }
    seeds
}

/// Seeds of the fetch-response target.
pub fn fetch_response_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = seed_batches()
        .iter()
        .map(|b| fetch_response(b, &[]))
        .collect();
    seeds.push(fetch_response(&seed_batches()[4], &[(42, 0)]));
    // A throttled response, a top-level error, and partition codes the consumer retries or
    // fails on (throttle at bytes 5..9, top-level error at 9..11, the partition's at 23..25).
    let base = fetch_response(&seed_batches()[0], &[]);
    let mut throttled = base.clone();
    throttled[5..9].copy_from_slice(&30_000i32.to_be_bytes());
    seeds.push(throttled);
    let mut failed = base.clone();
    failed[9..11].copy_from_slice(&(-1i16).to_be_bytes());
    seeds.push(failed);
    for code in [-1i16, 3, 6, 9, 29, 74, 75, 999] {
        let mut coded = base.clone();
        coded[23..25].copy_from_slice(&code.to_be_bytes());
        seeds.push(coded);
    }
    // Diverging epochs (the partition's tagged field 0: epoch, end offset, tags): a truncation,
    // a negative epoch (none), an undefined end offset, and fields of the wrong size.
    let empty = fetch_response(&[], &[]);
    let tail = empty.len() - 3;
    for (epoch, end, size) in [
        (3i32, 1i64, 13u8),
        (-1, -1, 13),
        (0, -1, 13),
        (3, 1, 4),
        (3, 1, 20),
    ] {
        let mut seed = empty[..tail].to_vec();
        seed.extend_from_slice(&[1, 0, size]);
        let mut field = epoch.to_be_bytes().to_vec();
        field.extend_from_slice(&end.to_be_bytes());
        field.resize(usize::from(size), 0);
        seed.extend_from_slice(&field);
        seed.extend_from_slice(&[0, 0]);
        seeds.push(seed);
    }
    seeds
}

/// Seeds of the response-frame target: the 4-byte size, then the 4-byte limit.
pub fn response_frame_seeds() -> Vec<Vec<u8>> {
    let limit = 114u32 * 1024 * 1024;
    let frame = |size: [u8; 4]| {
        let mut seed = size.to_vec();
        seed.extend_from_slice(&limit.to_be_bytes());
        seed
    };
    vec![
        frame(1000i32.to_be_bytes()),
        frame(0x7fff_ffffi32.to_be_bytes()),
        frame((-1i32).to_be_bytes()),
        // A TLS alert and a TLS handshake record, as a TLS listener sends them.
        frame([0x15, 0x03, 0x03, 0x00]),
        frame([0x16, 0x03, 0x01, 0x02]),
    ]
}

/// Zeros just past the decompression target's cap, compressed by `encoder` from a stream.
fn bomb(encoder: &mut dyn std::io::Write) {
    let bomb = crate::targets::DECOMPRESS_CAP + 1024;
    std::io::copy(&mut std::io::Read::take(std::io::repeat(0), bomb), encoder)
        .expect("writing to memory");
}

/// Seeds of the decompression target: the codec byte, then compressed records.
pub fn decompress_seeds() -> Vec<Vec<u8>> {
    let input = records(&[SeedRecord {
        key: Some(b"key"),
        value: Some(&[7; 300]),
        headers: &[],
    }]);
    let mut seeds: Vec<Vec<u8>> = (1..4)
        .map(|codec| {
            let mut seed = vec![codec as u8];
            seed.extend(compress(codec, &input));
            seed
        })
        .collect();
    let mut zstd = vec![4];
    karrow_kafka::compression::compress(
        karrow_kafka::compression::Codec::Zstd(3),
        &input,
        &mut zstd,
    )
    .expect("zstd");
    seeds.push(zstd);
    // Bombs: past the target's cap, which the buffer must never grow past.
    let mut gz = flate2::write::GzEncoder::new(vec![1], flate2::Compression::fast());
    bomb(&mut gz);
    seeds.push(gz.finish().expect("writing to memory"));
    let mut lz = lz4_flex::frame::FrameEncoder::new(vec![3]);
    bomb(&mut lz);
    seeds.push(lz.finish().expect("writing to memory"));
    let zeros = vec![0u8; crate::targets::DECOMPRESS_CAP as usize + 1024];
    let mut zstd_bomb = vec![4];
    karrow_kafka::compression::compress(
        karrow_kafka::compression::Codec::Zstd(3),
        &zeros,
        &mut zstd_bomb,
    )
    .expect("zstd");
    seeds.push(zstd_bomb);
    let mut snappy_bomb = vec![2];
    karrow_kafka::compression::compress(
        karrow_kafka::compression::Codec::Snappy,
        &zeros,
        &mut snappy_bomb,
    )
    .expect("snappy");
    seeds.push(snappy_bomb);
    // A raw snappy block claiming 200 MiB from four bytes.
    seeds.push(vec![2, 0x80, 0x80, 0x80, 0x64, 0, 1, 2, 3]);
    seeds
}
