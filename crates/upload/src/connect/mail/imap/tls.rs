//! The connection to an IMAP server: TCP with timeouts, and TLS by
//! rustls with ring (as `ureq` has it), checked against the webpki roots
//! and a private CA when one is named.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// How long a connection is tried.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long an answer is waited for.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);
/// The TLS settings: the webpki roots, and a private CA when one is named.
pub fn tls_config(ca: Option<&Path>) -> anyhow::Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(ca) = ca {
        let pem = std::fs::read(ca).with_context(|| format!("cannot read {}", ca.display()))?;
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            let cert = cert.with_context(|| format!("{}: not a PEM certificate", ca.display()))?;
            roots
                .add(cert)
                .with_context(|| format!("{}: a certificate rustls cannot use", ca.display()))?;
            added += 1;
        }
        anyhow::ensure!(added > 0, "{}: no PEM certificate in it", ca.display());
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS settings")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The socket, in the clear until STARTTLS, or under TLS.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

pub fn connect(peer: &str) -> anyhow::Result<TcpStream> {
    let addresses: Vec<_> = peer
        .to_socket_addrs()
        .with_context(|| format!("cannot reach imap server {peer}: no such host"))?
        .collect();
    let mut last = None;
    for address in addresses {
        match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(socket) => {
                socket.set_read_timeout(Some(ANSWER_TIMEOUT))?;
                socket.set_write_timeout(Some(ANSWER_TIMEOUT))?;
                return Ok(socket);
            }
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) => anyhow::bail!("cannot reach imap server {peer}: {e}"),
        None => anyhow::bail!("cannot reach imap server {peer}: no address"),
    }
}

pub fn secure(
    socket: TcpStream,
    host: &str,
    tls: &Arc<ClientConfig>,
) -> anyhow::Result<StreamOwned<ClientConnection, TcpStream>> {
    let name = ServerName::try_from(host.to_owned())
        .with_context(|| format!("imap {host}: not a host name TLS can check"))?;
    let connection =
        ClientConnection::new(tls.clone(), name).with_context(|| format!("imap {host}: TLS"))?;
    Ok(StreamOwned::new(connection, socket))
}
