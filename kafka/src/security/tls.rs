//! TLS for `SSL` and `SASL_SSL` listeners: a rustls client (ring, TLS 1.2 and 1.3) that trusts
//! the table's truststore, checks the broker's name as `ssl.endpoint.identification.algorithm`
//! says (`https`, the default: the certificate must name the host connected to; empty: the
//! chain is still verified, the name is not), and presents the keystore's certificate when
//! one is configured (mTLS).

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use thiserror::Error;
use zeroize::{Zeroize, Zeroizing};

/// Why the TLS settings could not be turned into a client configuration.
#[derive(Debug, Error)]
#[error("TLS settings: {0}")]
pub struct TlsSetupError(pub String);

/// The TLS settings of a table, as the connector read them from its key and trust stores.
#[derive(Clone, Default)]
pub struct TlsSettings {
    /// The certificates trusted as issuers of the broker's (`ssl.truststore.*`, or the JVM's
    /// default trust when none is configured), DER.
    pub trusted_certificates: Vec<Vec<u8>>,
    /// Whether the broker's certificate must name the host connected to
    /// (`ssl.endpoint.identification.algorithm` = `https`).
    pub verify_hostname: bool,
    /// The client's certificate chain, leaf first (`ssl.keystore.*`), DER; empty: none.
    pub client_certificate_chain: Vec<Vec<u8>>,
    /// The client's private key, PKCS#8 DER (with a chain; zeroed when dropped).
    pub client_key: Option<Zeroizing<Vec<u8>>>,
    /// The protocol versions enabled (`ssl.enabled.protocols`: `TLSv1.2`, `TLSv1.3`); empty:
    /// both.
    pub protocols: Vec<String>,
}

impl fmt::Debug for TlsSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsSettings")
            .field("trusted_certificates", &self.trusted_certificates.len())
            .field("verify_hostname", &self.verify_hostname)
            .field(
                "client_certificate_chain",
                &self.client_certificate_chain.len(),
            )
            .field("client_key", &self.client_key.as_ref().map(|_| "(set)"))
            .field("protocols", &self.protocols)
            .finish()
    }
}

/// A ready TLS client configuration (shared by every connection of a session).
#[derive(Clone)]
pub struct TlsConfig {
    config: Arc<ClientConfig>,
    verify_hostname: bool,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("verify_hostname", &self.verify_hostname)
            .finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// Builds the client configuration: fails on a certificate or key rustls cannot use, or
    /// on protocol versions it does not speak.
    pub fn new(settings: &TlsSettings) -> Result<TlsConfig, TlsSetupError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = RootCertStore::empty();
        for (i, der) in settings.trusted_certificates.iter().enumerate() {
            roots
                .add(CertificateDer::from(der.clone()))
                .map_err(|e| TlsSetupError(format!("trusted certificate {i}: {e}")))?;
        }
        if roots.is_empty() {
            return Err(TlsSetupError("no trusted certificate".into()));
        }
        let mut versions = Vec::new();
        for p in &settings.protocols {
            match p.trim() {
                "TLSv1.3" => versions.push(&rustls::version::TLS13),
                "TLSv1.2" => versions.push(&rustls::version::TLS12),
                other => {
                    return Err(TlsSetupError(format!(
                        "protocol '{other}' is not spoken (TLSv1.2 and TLSv1.3 are)"
                    )))
                }
            }
        }
        if versions.is_empty() {
            versions = vec![&rustls::version::TLS13, &rustls::version::TLS12];
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| TlsSetupError(e.to_string()))?;
        let verifier = Arc::new(ChainVerifier {
            inner: webpki,
            verify_hostname: settings.verify_hostname,
        });
        let builder = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&versions)
            .map_err(|e| TlsSetupError(e.to_string()))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let config = match (
            &settings.client_key,
            settings.client_certificate_chain.is_empty(),
        ) {
            (None, true) => builder.with_no_client_auth(),
            (Some(key), false) => {
                let chain = settings
                    .client_certificate_chain
                    .iter()
                    .map(|c| CertificateDer::from(c.clone()))
                    .collect();
                // The signing key is loaded from a copy that is zeroed right after (rustls'
                // own `with_client_auth_cert` would drop its copy unzeroed).
                let mut der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.to_vec()));
                let signing = rustls::crypto::ring::sign::any_supported_type(&der);
                der.zeroize();
                let signing =
                    signing.map_err(|e| TlsSetupError(format!("the keystore's key: {e}")))?;
                let certified = rustls::sign::CertifiedKey::new(chain, signing);
                match certified.keys_match() {
                    Ok(())
                    | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {}
                    Err(e) => return Err(TlsSetupError(format!("the keystore's key: {e}"))),
                }
                builder.with_client_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
                    certified,
                )))
            }
            _ => {
                return Err(TlsSetupError(
                    "a client key needs its certificate chain and the other way round".into(),
                ))
            }
        };
        Ok(TlsConfig {
            config: Arc::new(config),
            verify_hostname: settings.verify_hostname,
        })
    }

    /// The rustls configuration.
    pub(crate) fn client_config(&self) -> Arc<ClientConfig> {
        self.config.clone()
    }
}

/// The name a connection to `broker` (`host:port`, `[v6]:port`) verifies the certificate
/// against.
pub(crate) fn server_name(broker: &str) -> Result<ServerName<'static>, TlsSetupError> {
    let host = broker.rsplit_once(':').map_or(broker, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_string())
        .map_err(|e| TlsSetupError(format!("'{host}' is not a host name for TLS: {e}")))
}

/// The broker's chain verified against the trusted certificates (webpki); a certificate not
/// valid for the host name is accepted only when hostname verification is off.
#[derive(Debug)]
struct ChainVerifier {
    inner: Arc<WebPkiServerVerifier>,
    verify_hostname: bool,
}

impl ServerCertVerifier for ChainVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            // webpki checks the name after the chain: this error means the chain is trusted.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.verify_hostname => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A TLS failure as a message naming what to check.
pub(crate) fn describe(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "the broker's certificate is not issued by a trusted certificate (check \
             ssl.truststore.*): invalid peer certificate: UnknownIssuer"
                .to_string()
        }
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => format!(
            "the broker's certificate does not name the host connected to \
             (ssl.endpoint.identification.algorithm is https): {e}"
        ),
        other => other.to_string(),
    }
}

/// A client configuration trusting a test CA that signs nothing (for tests whose peer is
/// scripted: the handshake never reaches a certificate check, or fails it).
#[cfg(test)]
pub(crate) fn unit_test_config() -> TlsConfig {
    use base64::Engine as _;
    let pem = include_str!("testdata/ca.pem");
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .expect("testdata/ca.pem is base64");
    TlsConfig::new(&TlsSettings {
        trusted_certificates: vec![der],
        verify_hostname: true,
        ..TlsSettings::default()
    })
    .expect("the test CA is usable")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_verified_is_the_host_of_the_broker_address() {
        assert_eq!(
            server_name("127.0.0.1:9093").unwrap(),
            ServerName::try_from("127.0.0.1").unwrap()
        );
        assert_eq!(
            server_name("[::1]:9093").unwrap(),
            ServerName::try_from("::1").unwrap()
        );
        assert_eq!(
            server_name("broker-1.example.com:9093").unwrap(),
            ServerName::try_from("broker-1.example.com").unwrap()
        );
        assert!(server_name("bad host:9093").is_err());
    }

    #[test]
    fn unusable_settings_are_refused_with_the_reason() {
        let none = TlsConfig::new(&TlsSettings::default()).unwrap_err();
        assert!(none.0.contains("no trusted certificate"), "{none}");
        let junk = TlsConfig::new(&TlsSettings {
            trusted_certificates: vec![vec![1, 2, 3]],
            ..TlsSettings::default()
        })
        .unwrap_err();
        assert!(junk.0.contains("trusted certificate 0"), "{junk}");
        let debug = format!(
            "{:?}",
            TlsSettings {
                client_key: Some(Zeroizing::new(b"secret".to_vec())),
                ..TlsSettings::default()
            }
        );
        assert!(
            !debug.contains("secret") && !debug.contains("115"),
            "{debug}"
        );
    }
}
