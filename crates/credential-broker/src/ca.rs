//! The session's certificate authority: made in memory when the broker starts, it signs one
//! leaf certificate per GitHub host the broker terminates TLS for. Agent commands trust it
//! through the CA file the broker writes (public certificate only); the CA's private key
//! never leaves this process's memory (no file, no environment), so a program the agent
//! writes cannot mint certificates of its own, and it dies with the broker. The CA is also
//! name-constrained to exactly the hosts the broker terminates (github.com and its
//! subdomains, the enterprise hosts, the model API hosts: `Config::terminated_names`), and
//! every IP address is excluded: it is trusted by agent commands for nothing else, even if it
//! were misused. Why rcgen: it
//! makes certificates on the same `ring` provider rustls uses here (no second crypto stack).

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, CidrSubnet, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, GeneralSubtree, IsCa, KeyPair, KeyUsagePurpose, NameConstraints,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::ServerConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Why a certificate could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    #[error("certificate generation failed: {0}")]
    Generate(#[from] rcgen::Error),
    #[error("the TLS server configuration was refused: {0}")]
    Tls(#[from] rustls::Error),
}

/// The session CA and the server configurations made from it, one per host.
pub struct SessionCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
    servers: Mutex<HashMap<String, Arc<ServerConfig>>>,
}

impl SessionCa {
    /// A new CA (ECDSA P-256), valid for the session only (its name says so), for `hosts`
    /// and their subdomains only, no IP address (X.509 name constraints: a DNS constraint
    /// says nothing of IP names, so they are excluded outright).
    pub fn generate(hosts: &[String]) -> Result<SessionCa, CaError> {
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "agent-guards session broker CA");
        name.push(DnType::OrganizationName, "agent-guards");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params.name_constraints = Some(NameConstraints {
            permitted_subtrees: hosts
                .iter()
                .map(|h| GeneralSubtree::DnsName(h.clone()))
                .collect(),
            excluded_subtrees: vec![
                GeneralSubtree::IpAddress(CidrSubnet::V4([0; 4], [0; 4])),
                GeneralSubtree::IpAddress(CidrSubnet::V6([0; 16], [0; 16])),
            ],
        });
        let key = KeyPair::generate()?;
        Ok(SessionCa {
            issuer: CertifiedIssuer::self_signed(params, key)?,
            servers: Mutex::new(HashMap::new()),
        })
    }

    /// The CA certificate, PEM (what agent commands trust).
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// The CA certificate, DER.
    pub fn cert_der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }

    /// The TLS server configuration for `host` (a leaf certificate for it, made on first use;
    /// HTTP/1.1 only, so clients never pick h2).
    pub fn server_config(&self, host: &str) -> Result<Arc<ServerConfig>, CaError> {
        let host = host.to_ascii_lowercase();
        if let Some(c) = self.servers.lock().ok().and_then(|m| m.get(&host).cloned()) {
            return Ok(c);
        }
        let (chain, key) = self.leaf(&host)?;
        let mut config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()?
                .with_no_client_auth()
                .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        if let Ok(mut m) = self.servers.lock() {
            m.insert(host, config.clone());
        }
        Ok(config)
    }

    /// A leaf for `host` signed by the CA, and its key.
    fn leaf(
        &self,
        host: &str,
    ) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), CaError> {
        let mut params = CertificateParams::new(vec![host.to_string()])?;
        params
            .distinguished_name
            .push(DnType::CommonName, host.to_string());
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &self.issuer)?;
        let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        Ok((vec![cert.der().clone(), self.cert_der()], der))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_leaf_per_host_made_once() {
        let ca = SessionCa::generate(&["github.com".into()]).expect("a CA");
        assert!(ca.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
        let a = ca.server_config("api.github.com").expect("a config");
        let b = ca.server_config("API.github.com").expect("a config");
        assert!(Arc::ptr_eq(&a, &b), "cached per host, case-insensitive");
        assert_eq!(a.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }

    /// Whether a client that trusts only `ca` accepts the leaf it makes for a host.
    fn verifier_of(ca: &SessionCa) -> impl Fn(&str) -> Result<(), rustls::Error> + '_ {
        use rustls::client::danger::ServerCertVerifier;
        use rustls::pki_types::{ServerName, UnixTime};
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.cert_der()).expect("a root");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("a verifier");
        move |host: &str| {
            let (chain, _) = ca.leaf(host).expect("a leaf");
            let name = ServerName::try_from(host.to_string()).expect("a name");
            verifier
                .verify_server_cert(&chain[0], &chain[1..], &name, &[], UnixTime::now())
                .map(|_| ())
        }
    }

    #[test]
    fn the_ca_certifies_github_hosts_and_nothing_else() {
        let ca = SessionCa::generate(&["github.com".into(), "ghe.example".into()]).expect("a CA");
        let verdict = verifier_of(&ca);
        assert!(verdict("api.github.com").is_ok());
        assert!(verdict("ghe.example").is_ok());
        assert!(
            verdict("example.com").is_err(),
            "outside the name constraints"
        );
        assert!(verdict("github.com.evil.example").is_err());
    }

    #[test]
    fn the_ca_certifies_the_model_hosts_exactly_and_no_ip() {
        let mut config = crate::Config::new("t", None, "/nonexistent");
        config.model.base_url = Some("https://gateway.example/anthropic".into());
        let ca = SessionCa::generate(&config.terminated_names()).expect("a CA");
        let verdict = verifier_of(&ca);
        for terminated in ["api.anthropic.com", "gateway.example", "api.github.com"] {
            assert!(verdict(terminated).is_ok(), "{terminated}");
        }
        for other in [
            "anthropic.com",
            "console.anthropic.com",
            "example.com",
            "api.anthropic.com.evil.example",
            "127.0.0.1",
            "160.79.104.10",
            "::1",
        ] {
            assert!(
                verdict(other).is_err(),
                "{other} is outside the constraints"
            );
        }
    }
}
