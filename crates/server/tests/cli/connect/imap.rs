//! `kenning connect mail --imap` against a real IMAP server: Debian's
//! Dovecot, started by the test on free ports with a configuration of
//! its own in a scratch folder (a passwd-file of test users, a master
//! user, Maildir mail, TLS with a certificate of a CA `openssl` makes
//! here). Without Dovecot or openssl these tests are ignored
//! (`kenning_no_dovecot`, set by the build script), and `make test` says
//! so at its end.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::mail::{deliver, message};
use super::{count, Connected};

/// Where `dovecot` is looked for (as the build script looks).
const PROGRAM_DIRS: &[&str] = &["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];

/// A Dovecot serving IMAP on two free ports until dropped.
struct Dovecot {
    child: Child,
    dir: PathBuf,
    /// TLS from the start.
    tls_port: u16,
    /// In the clear until STARTTLS (the server refuses LOGIN before it).
    starttls_port: u16,
    /// The CA that signed the server's certificate.
    ca: PathBuf,
}

fn run(program: &str, args: &[&str], dir: &Path) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn id(args: &[&str]) -> String {
    let output = Command::new("id").args(args).output().unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `path` and its parents up to `top`, open to Dovecot's own user when
/// the test runs as root.
fn open_up(path: &Path, top: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let mut at = Some(path);
    while let Some(dir) = at.filter(|dir| dir.starts_with(top)) {
        let mode = if dir.is_dir() { 0o777 } else { 0o666 };
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
        at = dir.parent();
    }
}

impl Dovecot {
    /// Starts Dovecot in `dir` with `users` (login, password) and a master
    /// user `admin` whose password is `masterpw`.
    fn start(dir: &Path, users: &[(&str, &str)]) -> Self {
        let dovecot = PROGRAM_DIRS
            .iter()
            .map(|d| Path::new(d).join("dovecot"))
            .find(|p| p.is_file())
            .expect("dovecot is not installed (make mail-deps)");
        std::fs::create_dir_all(dir.join("mail")).unwrap();
        std::fs::write(
            dir.join("server.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        // A CA, and the server's certificate signed by it: what a private
        // CA's server presents (a self-signed leaf is refused by webpki).
        let ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
        for args in [
            format!(
                "req -x509 -new {ec} -keyout ca.key -out ca.pem -days 2 -subj /CN=Kenning-test-CA"
            ),
            format!("req -new {ec} -keyout server.key -out server.csr -subj /CN=localhost"),
            "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
             -days 2 -extfile server.ext"
                .to_owned(),
        ] {
            let args: Vec<&str> = args.split_whitespace().collect();
            run("openssl", &args, dir);
        }
        let passwd: String = users
            .iter()
            .map(|(user, password)| format!("{user}:{{PLAIN}}{password}::::::\n"))
            .collect();
        std::fs::write(dir.join("passwd"), passwd).unwrap();
        std::fs::write(dir.join("masters"), "admin:{PLAIN}masterpw::::::\n").unwrap();
        // Dovecot runs its login and mail processes as no root: as root,
        // as the users Debian's package made for it.
        let root = id(&["-u"]) == "0";
        let (internal, login, mail_user) = if root {
            ("dovecot".to_owned(), "dovenull".to_owned(), "dovecot")
        } else {
            let me = id(&["-un"]);
            (me.clone(), me, "")
        };
        let (uid, gid) = if root {
            (id(&["-u", mail_user]), id(&["-g", mail_user]))
        } else {
            (id(&["-u"]), id(&["-g"]))
        };
        let group = if root {
            id(&["-gn", mail_user])
        } else {
            id(&["-gn"])
        };
        let (tls_port, starttls_port) = (free_port(), free_port());
        let d = dir.display();
        let config = format!(
            "base_dir = {d}/run\nstate_dir = {d}/state\nlog_path = {d}/dovecot.log\n\
             instance_name = kenning-test-{tls_port}\nprotocols = imap\nlisten = 127.0.0.1\n\
             default_internal_user = {internal}\ndefault_internal_group = {group}\n\
             default_login_user = {login}\n\
             ssl = required\nssl_cert = <{d}/server.pem\nssl_key = <{d}/server.key\n\
             auth_mechanisms = plain login\nauth_master_user_separator = *\n\
             mail_location = maildir:{d}/mail/%u\nfirst_valid_uid = 1\n\
             passdb {{\n  driver = passwd-file\n  args = {d}/masters\n  master = yes\n}}\n\
             passdb {{\n  driver = passwd-file\n  args = {d}/passwd\n}}\n\
             userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={d}/home/%u\n}}\n\
             namespace inbox {{\n  inbox = yes\n  separator = /\n  mailbox Sent {{\n    special_use = \\Sent\n  }}\n}}\n\
             service imap-login {{\n  chroot =\n  inet_listener imap {{\n    port = {starttls_port}\n  }}\n\
               inet_listener imaps {{\n    port = {tls_port}\n    ssl = yes\n  }}\n}}\n\
             service anvil {{\n  chroot =\n}}\n"
        );
        std::fs::write(dir.join("dovecot.conf"), config).unwrap();
        open_up(&dir.join("mail"), dir);
        let child = Command::new(dovecot)
            .arg("-F")
            .arg("-c")
            .arg(dir.join("dovecot.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let dovecot = Self {
            child,
            dir: dir.to_owned(),
            tls_port,
            starttls_port,
            ca: dir.join("ca.pem"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", tls_port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "Dovecot did not start: {}",
                std::fs::read_to_string(dir.join("dovecot.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        dovecot
    }

    /// The Maildir folder of `user`'s `mailbox` (`INBOX` or a folder).
    fn folder(&self, user: &str, mailbox: &str) -> PathBuf {
        let root = self.dir.join("mail").join(user);
        if mailbox == "INBOX" {
            root
        } else {
            root.join(format!(".{mailbox}"))
        }
    }

    /// Delivers `raw` into `user`'s `mailbox` as `name`, readable by
    /// Dovecot's user.
    fn deliver(&self, user: &str, mailbox: &str, name: &str, raw: &str) {
        let folder = self.folder(user, mailbox);
        let sub = if name.contains(":2,") { "cur" } else { "new" };
        deliver(&folder, sub, name, raw);
        for sub in ["cur", "new", "tmp"] {
            open_up(&folder.join(sub), &self.dir.join("mail"));
        }
        open_up(&folder.join(sub).join(name), &self.dir.join("mail"));
    }

    /// Makes Dovecot number `user`'s `mailbox` afresh (a new UIDVALIDITY),
    /// as after a restore or a migration.
    fn renumber(&self, user: &str, mailbox: &str) {
        // The folder's UID list and index, and the list index that
        // remembers each folder's UIDVALIDITY.
        for (folder, kinds) in [
            (
                self.folder(user, mailbox),
                &["dovecot-uidlist", "dovecot.index"][..],
            ),
            (self.folder(user, "INBOX"), &["dovecot.list.index"][..]),
        ] {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if kinds.iter().any(|kind| name.starts_with(kind)) {
                    std::fs::remove_file(path).unwrap();
                }
            }
        }
        // UIDVALIDITY is the time in seconds: a second later it differs.
        std::thread::sleep(Duration::from_millis(1_100));
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        // SIGTERM: the master stops its own processes.
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

/// `kenning connect mail` against `dovecot` with `args`, the password
/// in KENNING_IMAP_PASSWORD.
fn imap(connected: &Connected, password: &str, args: &[&str]) -> Output {
    let mut command = connected.command(&["mail"]);
    command
        .args(args)
        .env("KENNING_IMAP_PASSWORD", password)
        .output()
        .unwrap()
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
#[cfg_attr(
    kenning_no_dovecot,
    ignore = "install dovecot-imapd and openssl (make mail-deps, as root) to run"
)]
fn sent_mail_over_imap_teaches_once_and_a_renumbered_mailbox_only_repeats() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dovecot = Dovecot::start(
        &connected.scratch.0.join("dovecot"),
        &[
            ("ada@example.com", "secret"),
            ("grace@example.com", "grace's"),
        ],
    );
    let ada = "Ada Lovelace <ada@example.com>";
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000001.M1P1.host:2,S",
        &message(
            "ada-imap-1",
            ada,
            "Re: Bernoulli numbers",
            "",
            "The engine computes Bernoulli numbers.\n\n> Can it do quantum chromodynamics?",
        ),
    );
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000002.M2P1.host:2,S",
        &message(
            "ada-imap-2",
            ada,
            "Jacquard looms",
            "",
            "Punched cards drive the looms.",
        ),
    );
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000003.M3P1.host:2,DS",
        &message(
            "ada-draft",
            ada,
            "Unfinished",
            "",
            "Half a thought on hydraulic pumps.",
        ),
    );
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000004.M4P1.host:2,S",
        &message(
            "ada-away",
            ada,
            "Away",
            "Auto-Submitted: auto-replied\n",
            "Away.",
        ),
    );
    // Received: in the inbox, never read.
    dovecot.deliver(
        "ada@example.com",
        "INBOX",
        "1770000005.M5P1.host",
        &message(
            "grace-to-ada",
            "Grace Hopper <grace@example.com>",
            "Nanoseconds",
            "",
            "A nanosecond is a wire a foot long.",
        ),
    );
    let ca = dovecot.ca.to_str().unwrap().to_owned();
    let tls = format!("127.0.0.1:{}", dovecot.tls_port);
    let ada_args = [
        "--imap",
        &tls,
        "--imap-user",
        "ada@example.com",
        "--imap-ca",
        &ca,
    ];

    let first = imap(&connected, "secret", &ada_args);
    let text = said(&first);
    assert!(first.status.success(), "{text}");
    assert_eq!(count(&first, "read"), 4, "{text}");
    assert_eq!(count(&first, "sent"), 2, "{text}");
    assert!(text.contains("skipped (draft): 1"), "{text}");
    assert!(
        text.contains("skipped (automatic (Auto-Submitted)): 1"),
        "{text}"
    );
    assert_eq!(
        connected.expert("Bernoulli numbers").as_deref(),
        Some("ada@example.com")
    );
    assert_eq!(connected.expert("quantum chromodynamics"), None);
    assert_eq!(connected.expert("nanosecond wire"), None);
    assert_eq!(connected.expert("hydraulic pumps"), None);

    let again = imap(&connected, "secret", &ada_args);
    assert!(again.status.success(), "{}", said(&again));
    assert_eq!(count(&again, "read"), 0, "{}", said(&again));

    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000006.M6P1.host:2,S",
        &message(
            "ada-imap-3",
            ada,
            "Gear trains",
            "",
            "The gear train carries the tens.",
        ),
    );
    let newer = imap(&connected, "secret", &ada_args);
    assert_eq!(count(&newer, "read"), 1, "{}", said(&newer));
    assert_eq!(count(&newer, "sent"), 1, "{}", said(&newer));

    dovecot.renumber("ada@example.com", "Sent");
    let renumbered = imap(&connected, "secret", &ada_args);
    let text = said(&renumbered);
    assert!(renumbered.status.success(), "{text}");
    assert_eq!(count(&renumbered, "read"), 5, "{text}");
    assert_eq!(count(&renumbered, "sent"), 0, "{text}");
    assert_eq!(count(&renumbered, "already known"), 3, "{text}");

    // An administrator reads several people's sent mail through the
    // master user, over STARTTLS; the password is the master's, in a file.
    dovecot.deliver(
        "grace@example.com",
        "Sent",
        "1770000007.M7P1.host:2,S",
        &message(
            "grace-imap-1",
            "Grace Hopper <grace@example.com>",
            "COBOL record layouts",
            "",
            "The data division describes each record layout.",
        ),
    );
    let password_file = connected.scratch.0.join("imap-password");
    std::fs::write(&password_file, "masterpw\n").unwrap();
    let starttls = format!("localhost:{}", dovecot.starttls_port);
    let admin = connected
        .command(&["mail"])
        .args(["--imap", &starttls, "--imap-starttls", "--imap-ca", &ca])
        .args([
            "--imap-user",
            "grace@example.com",
            "--imap-user",
            "ada@example.com",
        ])
        .args(["--imap-master", "admin", "--imap-password-file"])
        .arg(&password_file)
        .env_remove("KENNING_IMAP_PASSWORD")
        .output()
        .unwrap();
    let text = said(&admin);
    assert!(admin.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "mail imap://grace@example.com@{starttls}: read 1, sent 1"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "mail imap://ada@example.com@{starttls}: read 5, sent 0, already known 3"
        )),
        "{text}"
    );
    assert_eq!(
        connected.expert("COBOL record layouts").as_deref(),
        Some("grace@example.com")
    );
}

#[test]
#[cfg_attr(
    kenning_no_dovecot,
    ignore = "install dovecot-imapd and openssl (make mail-deps, as root) to run"
)]
fn a_wrong_password_an_unknown_ca_and_no_server_are_one_line_errors() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let dovecot = Dovecot::start(
        &connected.scratch.0.join("dovecot"),
        &[("ada@example.com", "secret")],
    );
    let ca = dovecot.ca.to_str().unwrap().to_owned();
    let tls = format!("127.0.0.1:{}", dovecot.tls_port);
    let last_line = |output: &Output| {
        assert!(!output.status.success(), "{}", said(output));
        said(output).lines().last().unwrap_or_default().to_owned()
    };

    let wrong = imap(
        &connected,
        "not the password",
        &[
            "--imap",
            &tls,
            "--imap-user",
            "ada@example.com",
            "--imap-ca",
            &ca,
        ],
    );
    let line = last_line(&wrong);
    assert!(
        line.starts_with("error: ")
            && line.contains("refused the login of ada@example.com")
            && line.contains("Authentication failed"),
        "{}",
        said(&wrong)
    );

    let unknown_ca = imap(
        &connected,
        "secret",
        &["--imap", &tls, "--imap-user", "ada@example.com"],
    );
    let line = last_line(&unknown_ca);
    assert!(line.contains("--imap-ca"), "{}", said(&unknown_ca));

    let closed = format!("127.0.0.1:{}", free_port());
    let nowhere = imap(
        &connected,
        "secret",
        &["--imap", &closed, "--imap-user", "ada@example.com"],
    );
    let line = last_line(&nowhere);
    assert!(
        line.starts_with("error: ") && line.contains(&format!("cannot reach imap server {closed}")),
        "{}",
        said(&nowhere)
    );

    let no_mailbox = imap(
        &connected,
        "secret",
        &[
            "--imap",
            &tls,
            "--imap-user",
            "ada@example.com",
            "--imap-ca",
            &ca,
            "--mailbox",
            "Gesendete Objekte",
        ],
    );
    let line = last_line(&no_mailbox);
    assert!(
        line.contains("cannot open the mailbox \"Gesendete Objekte\""),
        "{}",
        said(&no_mailbox)
    );

    let no_password = connected
        .command(&["mail", "--imap", &tls, "--imap-user", "ada@example.com"])
        .env_remove("KENNING_IMAP_PASSWORD")
        .output()
        .unwrap();
    let line = last_line(&no_password);
    assert!(
        line.contains("KENNING_IMAP_PASSWORD"),
        "{}",
        said(&no_password)
    );
}

#[test]
#[cfg_attr(
    kenning_no_dovecot,
    ignore = "install dovecot-imapd and openssl (make mail-deps, as root) to run"
)]
fn a_message_put_in_an_accounts_folder_teaches_only_from_its_own_addresses() {
    let connected = Connected::with_people(&["ada@example.com", "grace@example.com"]);
    let dovecot = Dovecot::start(
        &connected.scratch.0.join("dovecot"),
        &[("ada@example.com", "secret")],
    );
    // Anyone holding Ada's password can APPEND a message from anyone.
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000001.M1P1.host:2,S",
        &message(
            "appended",
            "Grace Hopper <grace@example.com>",
            "Lattice cryptography",
            "",
            "Lattice cryptography resists quantum attacks.",
        ),
    );
    dovecot.deliver(
        "ada@example.com",
        "Sent",
        "1770000002.M2P1.host:2,S",
        &message(
            "own",
            "Ada Lovelace <ada@example.com>",
            "Bernoulli numbers",
            "",
            "The engine computes Bernoulli numbers.",
        ),
    );
    let ca = dovecot.ca.to_str().unwrap().to_owned();
    let tls = format!("127.0.0.1:{}", dovecot.tls_port);
    let args = [
        "--imap",
        &tls,
        "--imap-user",
        "ada@example.com",
        "--imap-ca",
        &ca,
    ];
    let run = imap(&connected, "secret", &args);
    let text = said(&run);
    assert!(run.status.success(), "{text}");
    assert_eq!(count(&run, "sent"), 1, "{text}");
    assert!(
        text.contains("skipped (not from the account's own address): 1"),
        "{text}"
    );
    assert_eq!(connected.expert("lattice cryptography"), None);

    // The operator may say that another address is the account's own.
    std::fs::remove_dir_all(connected.scratch.0.join("cursors")).unwrap();
    let mut aliased = args.to_vec();
    aliased.extend(["--imap-alias", "ada@example.com=grace@example.com"]);
    let run = imap(&connected, "secret", &aliased);
    assert!(run.status.success(), "{}", said(&run));
    assert_eq!(
        connected.expert("lattice cryptography").as_deref(),
        Some("grace@example.com")
    );
}

#[test]
fn a_login_that_is_no_address_needs_the_accounts_addresses() {
    let connected = Connected::with_people(&["ada@example.com"]);
    let run = imap(
        &connected,
        "secret",
        &["--imap", "127.0.0.1:9", "--imap-user", "ada"],
    );
    let text = said(&run);
    assert!(!run.status.success(), "{text}");
    assert!(text.contains("--imap-alias ada=ADDRESS"), "{text}");
}
