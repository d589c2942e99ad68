//! SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's `ScramSaslClient` speaks
//! them: no channel binding (`n,,`), no extensions, at least 4096 iterations (Kafka's
//! minimum) and at most 16384 (Kafka's maximum, which also bounds the CPU a hostile server
//! can make the client spend), and the server's signature checked before the connection is
//! taken as authenticated.
//!
//! Every server message is parsed with its length bounded by the response frame it came in;
//! a message that is not what RFC 5802 says is refused with the reason.

use base64::Engine;
use ring::{digest, hmac, pbkdf2};
use thiserror::Error;
use zeroize::Zeroizing;

/// Kafka's fewest iterations (`ScramMechanism.minIterations`).
pub const MIN_ITERATIONS: u32 = 4096;
/// Kafka's most iterations (`ScramMechanism.maxIterations`).
pub const MAX_ITERATIONS: u32 = 16384;

/// The hash of a SCRAM mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScramHash {
    /// SCRAM-SHA-256.
    Sha256,
    /// SCRAM-SHA-512.
    Sha512,
}

impl ScramHash {
    fn hmac(self) -> hmac::Algorithm {
        match self {
            ScramHash::Sha256 => hmac::HMAC_SHA256,
            ScramHash::Sha512 => hmac::HMAC_SHA512,
        }
    }

    fn digest(self) -> &'static digest::Algorithm {
        match self {
            ScramHash::Sha256 => &digest::SHA256,
            ScramHash::Sha512 => &digest::SHA512,
        }
    }

    fn pbkdf2(self) -> pbkdf2::Algorithm {
        match self {
            ScramHash::Sha256 => pbkdf2::PBKDF2_HMAC_SHA256,
            ScramHash::Sha512 => pbkdf2::PBKDF2_HMAC_SHA512,
        }
    }

    fn len(self) -> usize {
        self.digest().output_len()
    }

    /// Kafka's name of the mechanism.
    pub fn mechanism(self) -> &'static str {
        match self {
            ScramHash::Sha256 => "SCRAM-SHA-256",
            ScramHash::Sha512 => "SCRAM-SHA-512",
        }
    }
}

/// A SCRAM exchange that failed on the client's side (the server's messages).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("SCRAM: {0}")]
pub struct ScramError(pub String);

/// The server-first message: the combined nonce, the salt and the iteration count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFirst {
    /// The client's nonce followed by the server's.
    pub nonce: String,
    /// The salt (decoded).
    pub salt: Vec<u8>,
    /// The iteration count.
    pub iterations: u32,
}

/// The server-final message: the server's signature, or an error it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFinal {
    /// `v=`: the server's signature (decoded).
    Verifier(Vec<u8>),
    /// `e=`: the server's error.
    Error(String),
}

fn text(msg: &[u8]) -> Result<&str, ScramError> {
    std::str::from_utf8(msg).map_err(|_| ScramError("the server's message is not UTF-8".into()))
}

fn attribute<'a>(part: Option<&'a str>, name: char, what: &str) -> Result<&'a str, ScramError> {
    let part = part.ok_or_else(|| ScramError(format!("the server's message has no {what}")))?;
    let mut chars = part.chars();
    match (chars.next(), chars.next()) {
        (Some(c), Some('=')) if c == name => Ok(&part[2..]),
        _ => Err(ScramError(format!(
            "expected the {what} ('{name}=') in the server's message, got '{}'",
            part.chars().take(16).collect::<String>()
        ))),
    }
}

fn base64_decode(value: &str, what: &str) -> Result<Vec<u8>, ScramError> {
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .map_err(|e| ScramError(format!("the {what} is not base64: {e}")))
}

/// Parses a server-first message (`r=nonce,s=salt,i=iterations[,extensions]`).
pub fn parse_server_first(msg: &[u8]) -> Result<ServerFirst, ScramError> {
    let msg = text(msg)?;
    if msg.starts_with("m=") {
        return Err(ScramError(
            "the server requires an extension this client does not know ('m=')".into(),
        ));
    }
    let mut parts = msg.split(',');
    let nonce = attribute(parts.next(), 'r', "nonce")?;
    if nonce.is_empty() || !nonce.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(ScramError(
            "the server's nonce is empty or not printable ASCII".into(),
        ));
    }
    let salt = base64_decode(attribute(parts.next(), 's', "salt")?, "salt")?;
    if salt.is_empty() {
        return Err(ScramError("the server's salt is empty".into()));
    }
    let iterations = attribute(parts.next(), 'i', "iteration count")?;
    let iterations = iterations
        .parse::<u32>()
        .ok()
        .filter(|_| !iterations.starts_with('+'))
        .ok_or_else(|| {
            ScramError(format!(
                "the iteration count '{iterations}' is not a number"
            ))
        })?;
    Ok(ServerFirst {
        nonce: nonce.to_string(),
        salt,
        iterations,
    })
}

/// Parses a server-final message (`v=signature` or `e=error`, then optional extensions).
pub fn parse_server_final(msg: &[u8]) -> Result<ServerFinal, ScramError> {
    let msg = text(msg)?;
    let first = msg.split(',').next().unwrap_or_default();
    if let Some(error) = first.strip_prefix("e=") {
        return Ok(ServerFinal::Error(error.chars().take(256).collect()));
    }
    let verifier = attribute(Some(first), 'v', "server signature")?;
    Ok(ServerFinal::Verifier(base64_decode(
        verifier,
        "server signature",
    )?))
}

/// `username` as a SCRAM `saslname` (`=` as `=3D`, `,` as `=2C`), as Kafka's
/// `ScramFormatter.saslName` writes it.
pub fn sasl_name(username: &str) -> String {
    username.replace('=', "=3D").replace(',', "=2C")
}

/// One client's side of one SCRAM exchange.
pub struct ScramClient {
    hash: ScramHash,
    password: Zeroizing<String>,
    client_nonce: String,
    client_first_bare: String,
    server_signature: Option<Vec<u8>>,
}

/// The GS2 header: no channel binding, no authorization id.
const GS2_HEADER: &str = "n,,";

impl ScramClient {
    /// A new exchange for `username` with `password`, using `client_nonce` (printable ASCII
    /// without commas; [`ScramClient::random_nonce`] makes one).
    pub fn new(hash: ScramHash, username: &str, password: &str, client_nonce: String) -> Self {
        let client_first_bare = format!("n={},r={client_nonce}", sasl_name(username));
        ScramClient {
            hash,
            password: Zeroizing::new(password.to_string()),
            client_nonce,
            client_first_bare,
            server_signature: None,
        }
    }

    /// A fresh nonce: 24 random bytes, base64 (no commas).
    pub fn random_nonce() -> Result<String, ScramError> {
        use ring::rand::SecureRandom;
        let mut bytes = [0u8; 24];
        ring::rand::SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| ScramError("no random bytes for the nonce".into()))?;
        Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    /// The client-first message.
    pub fn client_first(&self) -> Vec<u8> {
        format!("{GS2_HEADER}{}", self.client_first_bare).into_bytes()
    }

    /// The client-final message answering `server_first` (with the client's proof); keeps
    /// the server signature the final message must carry.
    pub fn client_final(&mut self, server_first: &[u8]) -> Result<Zeroizing<Vec<u8>>, ScramError> {
        let first = parse_server_first(server_first)?;
        if first.nonce.len() <= self.client_nonce.len()
            || !first.nonce.starts_with(&self.client_nonce)
        {
            return Err(ScramError(
                "invalid server nonce: it does not extend the client nonce".into(),
            ));
        }
        if first.iterations < MIN_ITERATIONS {
            return Err(ScramError(format!(
                "requested iterations {} is less than the minimum {MIN_ITERATIONS} for {}",
                first.iterations,
                self.hash.mechanism()
            )));
        }
        if first.iterations > MAX_ITERATIONS {
            return Err(ScramError(format!(
                "requested iterations {} is more than the maximum {MAX_ITERATIONS} for {}",
                first.iterations,
                self.hash.mechanism()
            )));
        }
        let iterations = std::num::NonZeroU32::new(first.iterations)
            .ok_or_else(|| ScramError("zero iterations".into()))?;
        // The salted password and the client's proof are zeroed when dropped; ring's own HMAC
        // key schedules and tags are not reachable from here.
        let mut salted = Zeroizing::new(vec![0u8; self.hash.len()]);
        pbkdf2::derive(
            self.hash.pbkdf2(),
            iterations,
            &first.salt,
            self.password.as_bytes(),
            &mut salted,
        );
        let salted_key = hmac::Key::new(self.hash.hmac(), &salted);
        let client_key = hmac::sign(&salted_key, b"Client Key");
        let stored_key = digest::digest(self.hash.digest(), client_key.as_ref());
        let server_key = hmac::sign(&salted_key, b"Server Key");
        let b64 = base64::engine::general_purpose::STANDARD;
        let without_proof = format!("c={},r={}", b64.encode(GS2_HEADER), first.nonce);
        let server_first = text(server_first)?;
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let client_signature = hmac::sign(
            &hmac::Key::new(self.hash.hmac(), stored_key.as_ref()),
            auth_message.as_bytes(),
        );
        let proof: Zeroizing<Vec<u8>> = Zeroizing::new(
            client_key
                .as_ref()
                .iter()
                .zip(client_signature.as_ref())
                .map(|(k, s)| k ^ s)
                .collect(),
        );
        let server_signature = hmac::sign(
            &hmac::Key::new(self.hash.hmac(), server_key.as_ref()),
            auth_message.as_bytes(),
        );
        self.server_signature = Some(server_signature.as_ref().to_vec());
        let encoded = Zeroizing::new(b64.encode(proof.as_slice()));
        Ok(Zeroizing::new(
            format!("{without_proof},p={}", encoded.as_str()).into_bytes(),
        ))
    }

    /// Checks the server-final message: the server proves it knows the credentials.
    pub fn verify_server_final(&self, server_final: &[u8]) -> Result<(), ScramError> {
        let expected = self
            .server_signature
            .as_ref()
            .ok_or_else(|| ScramError("the server-final message came first".into()))?;
        match parse_server_final(server_final)? {
            ServerFinal::Error(e) => Err(ScramError(format!("the server says: {e}"))),
            ServerFinal::Verifier(v) if same(&v, expected) => Ok(()),
            ServerFinal::Verifier(_) => Err(ScramError(
                "invalid server signature in the server-final message".into(),
            )),
        }
    }
}

/// Whether `a` and `b` are equal, compared in time independent of where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677, section 3: the SCRAM-SHA-256 example exchange.
    #[test]
    fn the_rfc_7677_exchange_is_reproduced() {
        let mut c = ScramClient::new(
            ScramHash::Sha256,
            "user",
            "pencil",
            "rOprNGfwEbeRWgbNEkqO".to_string(),
        );
        assert_eq!(c.client_first(), b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first =
            b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let last = c.client_final(server_first).unwrap();
        assert_eq!(
            String::from_utf8(last.to_vec()).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
             p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        c.verify_server_final(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        let wrong = c
            .verify_server_final(b"v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap_err();
        assert!(wrong.0.contains("invalid server signature"), "{wrong}");
        let error = c.verify_server_final(b"e=invalid-proof").unwrap_err();
        assert!(error.0.contains("invalid-proof"), "{error}");
    }

    #[test]
    fn names_are_escaped_as_kafka_escapes_them() {
        assert_eq!(sasl_name("a=b,c"), "a=3Db=2Cc");
    }

    #[test]
    fn hostile_server_first_messages_are_refused() {
        let mut c = ScramClient::new(ScramHash::Sha512, "u", "p", "abc".to_string());
        for (msg, why) in [
            (&b"r=xyz1,s=c2FsdA==,i=4096"[..], "nonce"),
            (b"r=abc,s=c2FsdA==,i=4096", "nonce"),
            (b"r=abcd,s=c2FsdA==,i=4095", "minimum"),
            (b"r=abcd,s=c2FsdA==,i=4294967295", "maximum"),
            (b"r=abcd,s=c2FsdA==,i=99999999999", "not a number"),
            (b"r=abcd,s=c2FsdA==,i=+4096", "not a number"),
            (b"r=abcd,s=c2FsdA==", "iteration count"),
            (b"r=abcd,s=!!,i=4096", "base64"),
            (b"r=abcd,s=,i=4096", "salt is empty"),
            (b"m=ext,r=abcd,s=c2FsdA==,i=4096", "extension"),
            (b"s=c2FsdA==,r=abcd,i=4096", "nonce"),
            (b"r=ab\xffcd,s=c2FsdA==,i=4096", "UTF-8"),
            (b"", "nonce"),
        ] {
            let e = c.client_final(msg).unwrap_err();
            assert!(e.0.contains(why), "{}: {e}", String::from_utf8_lossy(msg));
        }
        let ok = c.client_final(b"r=abcdef,s=c2FsdA==,i=4096,x=ext").unwrap();
        assert!(ok.starts_with(b"c=biws,r=abcdef,p="));
    }

    #[test]
    fn server_final_messages_are_parsed_with_bounds() {
        assert_eq!(
            parse_server_final(b"v=AAEC").unwrap(),
            ServerFinal::Verifier(vec![0, 1, 2])
        );
        assert!(parse_server_final(b"x=AAEC").is_err());
        assert!(parse_server_final(b"v=@@").is_err());
        let long = format!("e={}", "x".repeat(10_000));
        match parse_server_final(long.as_bytes()).unwrap() {
            ServerFinal::Error(e) => assert_eq!(e.len(), 256),
            other => panic!("{other:?}"),
        }
        let c = ScramClient::new(ScramHash::Sha256, "u", "p", "n".to_string());
        assert!(c.verify_server_final(b"v=AAEC").is_err());
    }
}
