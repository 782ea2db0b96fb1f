//! The mail rows of `make bench-connect`: a generated sent folder of
//! 10,000 messages (replies quoting what they answer, with signatures, as
//! mail is), as an mbox file and in the Maildir of a Dovecot served here
//! for IMAP (Debian's dovecot-imapd, a throwaway configuration, TLS with
//! a CA made by `openssl`).

use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use kenning_upload::connect::{self, mail, Found, Source, Window};
use serde_json::Value;

use crate::directory;

/// Messages of the generated sent folder.
pub const MESSAGES: usize = 10_000;
/// The IMAP account that holds them, and its password.
pub const IMAP_USER: &str = "bench@kenning.example";
pub const IMAP_PASSWORD: &str = "bench";

/// Message `n`, sent by one of the first `authors` people of the directory.
fn message(n: usize, authors: u64, sentences: &[&str]) -> String {
    let seed = directory::mix(n as u64 ^ 0x3a11);
    let author = seed % authors;
    let pick = |k: u64| sentences[(directory::mix(seed ^ k) as usize) % sentences.len()];
    format!(
        "From: Person {author} <{}>\nTo: Team <team@kenning.example>\n\
         Subject: Re: {} ({n})\nDate: Tue, 3 Mar 2026 10:{:02}:00 +0000\n\
         Message-ID: <bench-{n}@kenning.example>\nMIME-Version: 1.0\n\
         Content-Type: text/plain; charset=utf-8\n\n\
         {}. {}. {}.\n\nOn Mon, 2 Mar 2026, a colleague wrote:\n> {}.\n> {}.\n\n-- \nPerson {author}\n",
        directory::email(author),
        pick(1),
        n % 60,
        pick(2),
        pick(3),
        pick(4),
        pick(5),
        pick(6)
    )
}

/// Writes the sent folder as an mbox file at `at`, unless it is there.
pub fn mbox(at: &Path, authors: u64, sentences: &[&str]) -> anyhow::Result<()> {
    if at.exists() {
        return Ok(());
    }
    let partial = at.with_extension("partial");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&partial)?);
    for n in 0..MESSAGES {
        writeln!(
            file,
            "From sender@kenning.example Tue Mar  3 10:00:00 2026\n{}",
            message(n, authors, sentences)
        )?;
    }
    file.flush()?;
    drop(file);
    std::fs::rename(partial, at)?;
    Ok(())
}

/// The uploads `kenning connect mail --sent` makes of the mbox at `path`.
pub fn uploads(path: &Path) -> anyhow::Result<Vec<Value>> {
    let rules = mail::Rules {
        all_sent: true,
        ..mail::Rules::default()
    };
    let mut folder = mail::mbox::Mbox::open(path, rules)?;
    let mut uploads = Vec::new();
    folder.read(None, &Window::default(), &mut |found| {
        if let Found::Item(item) = found {
            for (n, (who, _)) in item.actions.iter().enumerate() {
                if let Some(email) = &who.email {
                    uploads.push(connect::upload_body("mail", &item, n, email));
                }
            }
        }
        true
    })?;
    Ok(uploads)
}

/// A Dovecot serving the sent folder over IMAP (TLS) until dropped.
pub struct Dovecot {
    child: Child,
    pub port: u16,
    /// The CA of its certificate.
    pub ca: PathBuf,
}

impl std::fmt::Debug for Dovecot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dovecot")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

fn run(program: &str, args: &str, dir: &Path) -> anyhow::Result<()> {
    let output = Command::new(program)
        .args(args.split_whitespace())
        .current_dir(dir)
        .output()
        .with_context(|| format!("run {program}"))?;
    anyhow::ensure!(
        output.status.success(),
        "{program} {args}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

fn id(args: &[&str]) -> anyhow::Result<String> {
    let output = Command::new("id").args(args).output().context("run id")?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Opens `path` and everything under it to Dovecot's own user (when
/// this runs as root, Dovecot's mail processes do not).
fn open_up(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = if path.is_dir() { 0o777 } else { 0o666 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            open_up(&entry?.path())?;
        }
    }
    Ok(())
}

impl Dovecot {
    /// Serves, from a fresh folder `dir`, the sent folder of [`IMAP_USER`]
    /// holding the messages of the mbox at `mbox`.
    pub fn serve(dir: &Path, mbox: &Path) -> anyhow::Result<Self> {
        let dovecot = ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]
            .iter()
            .map(|d| Path::new(d).join("dovecot"))
            .find(|p| p.is_file())
            .context("dovecot is not installed (make mail-deps)")?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir)?;
        // Dovecot's configuration names files by absolute paths.
        let dir = &std::fs::canonicalize(dir)?;
        let sent = dir.join("mail").join(IMAP_USER).join(".Sent");
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir_all(sent.join(sub))?;
        }
        let text = std::fs::read_to_string(mbox)?;
        for (n, raw) in text
            .split("From sender@kenning.example Tue Mar  3 10:00:00 2026\n")
            .filter(|m| !m.is_empty())
            .enumerate()
        {
            std::fs::write(
                sent.join("cur")
                    .join(format!("{}.M{n}P1.bench:2,S", 1_772_532_000 + n)),
                raw,
            )?;
        }
        std::fs::write(
            dir.join("server.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )?;
        let ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
        run(
            "openssl",
            &format!("req -x509 -new {ec} -keyout ca.key -out ca.pem -days 2 -subj /CN=bench-CA"),
            dir,
        )?;
        run(
            "openssl",
            &format!("req -new {ec} -keyout server.key -out server.csr -subj /CN=localhost"),
            dir,
        )?;
        run("openssl", "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext", dir)?;
        std::fs::write(
            dir.join("passwd"),
            format!("{IMAP_USER}:{{PLAIN}}{IMAP_PASSWORD}::::::\n"),
        )?;
        let root = id(&["-u"])? == "0";
        let (internal, login, uid, gid, group) = if root {
            (
                "dovecot".to_owned(),
                "dovenull".to_owned(),
                id(&["-u", "dovecot"])?,
                id(&["-g", "dovecot"])?,
                id(&["-gn", "dovecot"])?,
            )
        } else {
            let me = id(&["-un"])?;
            (me.clone(), me, id(&["-u"])?, id(&["-g"])?, id(&["-gn"])?)
        };
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let d = dir.display();
        std::fs::write(
            dir.join("dovecot.conf"),
            format!(
                "base_dir = {d}/run\nstate_dir = {d}/state\nlog_path = {d}/dovecot.log\n\
                 instance_name = kenning-bench-{port}\nprotocols = imap\nlisten = 127.0.0.1\n\
                 default_internal_user = {internal}\ndefault_internal_group = {group}\n\
                 default_login_user = {login}\nssl = required\n\
                 ssl_cert = <{d}/server.pem\nssl_key = <{d}/server.key\n\
                 mail_location = maildir:{d}/mail/%u\nfirst_valid_uid = 1\n\
                 passdb {{\n  driver = passwd-file\n  args = {d}/passwd\n}}\n\
                 userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={d}/home/%u\n}}\n\
                 namespace inbox {{\n  inbox = yes\n  mailbox Sent {{\n    special_use = \\Sent\n  }}\n}}\n\
                 service imap-login {{\n  chroot =\n  inet_listener imap {{\n    port = 0\n  }}\n\
                   inet_listener imaps {{\n    port = {port}\n    ssl = yes\n  }}\n}}\n\
                 service anvil {{\n  chroot =\n}}\n"
            ),
        )?;
        open_up(&dir.join("mail"))?;
        let child = Command::new(dovecot)
            .arg("-F")
            .arg("-c")
            .arg(dir.join("dovecot.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("run dovecot")?;
        let served = Self {
            child,
            port,
            ca: dir.join("ca.pem"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            anyhow::ensure!(
                Instant::now() < deadline,
                "Dovecot did not start: {}",
                std::fs::read_to_string(dir.join("dovecot.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(served)
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
