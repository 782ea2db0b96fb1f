//! The rules on messages as mail clients and servers write them.

use super::*;

fn place() -> Place {
    Place {
        origin: "Sent.mbox: message at byte 0".to_owned(),
        position: "42".to_owned(),
        arrived: None,
    }
}

fn sent() -> Rules {
    Rules {
        all_sent: true,
        senders: Vec::new(),
        own: Vec::new(),
    }
}

fn item(raw: &str, rules: &Rules) -> Item {
    match judge(raw.as_bytes(), rules, place(), &Senders::default()) {
        Found::Item(item) => item,
        other => panic!("not an item: {other:?}"),
    }
}

fn skipped(raw: &str, rules: &Rules) -> &'static str {
    match judge(raw.as_bytes(), rules, place(), &Senders::default()) {
        Found::Skipped { reason, position } => {
            assert_eq!(position.as_deref(), Some("42"));
            reason
        }
        other => panic!("not skipped: {other:?}"),
    }
}

/// A reply as Gmail sends it: text and HTML alternatives, the history
/// quoted in both.
const GMAIL_REPLY: &str = "MIME-Version: 1.0\r\n\
Date: Mon, 2 Feb 2026 11:04:27 +0100\r\n\
References: <CAx1@mail.gmail.com>\r\n\
In-Reply-To: <CAx1@mail.gmail.com>\r\n\
Message-ID: <CAy2+reply@mail.gmail.com>\r\n\
Subject: Re: Bernoulli numbers on the engine\r\n\
From: Ada Lovelace <Ada@Example.com>\r\n\
To: Grace Hopper <grace@example.com>\r\n\
Content-Type: multipart/alternative; boundary=\"000000000000b1\"\r\n\
\r\n\
--000000000000b1\r\n\
Content-Type: text/plain; charset=\"UTF-8\"\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\
\r\n\
The engine computes them from the recurrence; note G in the table gives =\r\n\
the order of operations.\r\n\
\r\n\
On Mon, Feb 2, 2026 at 10:00 AM Grace Hopper <grace@example.com> wrote:\r\n\
\r\n\
> How does the engine compute Bernoulli numbers?\r\n\
>\r\n\
\r\n\
--000000000000b1\r\n\
Content-Type: text/html; charset=\"UTF-8\"\r\n\
\r\n\
<div dir=\"ltr\">The engine computes them from the recurrence.</div><div class=\"gmail_quote\">On Mon wrote:<blockquote>How?</blockquote></div>\r\n\
--000000000000b1--\r\n";

#[test]
fn a_sent_reply_teaches_its_sender_its_own_words() {
    let item = item(GMAIL_REPLY, &sent());
    assert_eq!(item.id, "CAy2+reply@mail.gmail.com");
    assert_eq!(item.entity_type, "email");
    assert_eq!(
        item.actions,
        vec![(Identity::by_email("ada@example.com"), "sent")]
    );
    assert_eq!(item.date.to_rfc3339(), "2026-02-02T10:04:27+00:00");
    assert_eq!(item.position, "42");
    assert_eq!(
        item.texts,
        vec![
            Text::plain(Descriptor::Primary, "Bernoulli numbers on the engine"),
            Text::plain(
                Descriptor::Default,
                "The engine computes them from the recurrence; note G in the table gives the order of operations."
            ),
        ]
    );
}

#[test]
fn received_mail_teaches_nobody_and_senders_narrow_the_sent_mail() {
    let only_grace = Rules {
        all_sent: false,
        senders: vec!["grace@example.com".to_owned()],
        own: Vec::new(),
    };
    assert_eq!(skipped(GMAIL_REPLY, &only_grace), "received");
    let ada = Rules {
        all_sent: false,
        senders: vec![sender_address(" Ada@example.COM").unwrap()],
        own: Vec::new(),
    };
    assert_eq!(item(GMAIL_REPLY, &ada).actions.len(), 1);
    // In a sent folder, --sender still narrows.
    let narrowed = Rules {
        all_sent: true,
        ..only_grace
    };
    assert_eq!(skipped(GMAIL_REPLY, &narrowed), "received");
    assert_eq!(skipped(GMAIL_REPLY, &Rules::default()), "received");
    assert!(sender_address("not an address").is_err());
}

#[test]
fn an_accounts_folder_teaches_only_what_its_own_addresses_sent() {
    // Anyone may APPEND a message from anyone into a Sent folder.
    let graces = Rules {
        all_sent: true,
        own: vec!["grace@example.com".to_owned()],
        ..Rules::default()
    };
    assert_eq!(
        skipped(GMAIL_REPLY, &graces),
        "not from the account's own address"
    );
    let adas = Rules {
        all_sent: true,
        own: vec!["grace@example.com".to_owned(), "ada@example.com".to_owned()],
        ..Rules::default()
    };
    assert_eq!(item(GMAIL_REPLY, &adas).actions.len(), 1);
}

#[test]
fn html_only_mail_is_read_as_text_without_its_history() {
    let outlook = "From: Grace Hopper <grace@example.com>\r\n\
To: Ada Lovelace <ada@example.com>\r\n\
Subject: RE: COBOL record layouts\r\n\
Date: Tue, 3 Feb 2026 09:00:00 +0000\r\n\
Message-ID: <DB9PR01MB1234@eurprd01.prod.outlook.com>\r\n\
Content-Type: text/html; charset=\"us-ascii\"\r\n\
\r\n\
<html><head><style>p.MsoNormal{margin:0cm;font-size:11.0pt;font-family:\"Calibri\",sans-serif}</style></head>\r\n\
<body><p class=MsoNormal>The data division describes each record&#39;s layout.</p>\r\n\
<div id=\"Signature\"><p>Grace Hopper | Compilers</p></div>\r\n\
<div id=\"divRplyFwdMsg\"><b>From:</b> Ada<br><b>Sent:</b> Monday</div><p>Where are records described?</p></body></html>\r\n";
    let item = item(outlook, &sent());
    assert_eq!(item.texts[0].text, "COBOL record layouts");
    assert_eq!(
        item.texts[1].text,
        "The data division describes each record's layout."
    );
    assert!(!item.texts[1].html);
}

#[test]
fn attachments_are_never_read() {
    let with_attachments = "From: ada@example.com\r\n\
Subject: Gear tables\r\n\
Date: Wed, 4 Feb 2026 09:00:00 +0000\r\n\
Message-ID: <gears@example.com>\r\n\
Content-Type: multipart/mixed; boundary=\"b\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/plain\r\n\
\r\n\
The gear tables are attached.\r\n\
--b\r\n\
Content-Type: text/plain; name=\"secret.txt\"\r\n\
Content-Disposition: attachment; filename=\"secret.txt\"\r\n\
\r\n\
payroll salaries confidential\r\n\
--b\r\n\
Content-Type: application/pdf; name=\"gears.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\
Content-Disposition: attachment; filename=\"gears.pdf\"\r\n\
\r\n\
JVBERi0xLjQKJcfsj6IKNSAwIG9iago=\r\n\
--b\r\n\
Content-Type: message/rfc822\r\n\
\r\n\
From: grace@example.com\r\n\
Subject: forwarded\r\n\
\r\n\
Quantum chromodynamics.\r\n\
--b--\r\n";
    let item = item(with_attachments, &sent());
    assert_eq!(item.texts[1].text, "The gear tables are attached.");
}

#[test]
fn automatic_mail_teaches_nobody() {
    let auto_reply = "From: ada@example.com\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\nDate: Wed, 4 Feb 2026 09:00:00 +0000\r\n\r\nI am away.\r\n";
    assert_eq!(skipped(auto_reply, &sent()), "automatic (Auto-Submitted)");
    let by_hand = auto_reply.replace("auto-replied", "no");
    assert_eq!(item(&by_hand, &sent()).texts[1].text, "I am away.");
    let bulk = "From: ada@example.com\r\nPrecedence: bulk\r\nSubject: News\r\n\r\nNews.\r\n";
    assert_eq!(skipped(bulk, &sent()), "automatic (Precedence)");
    let bounce = "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\r\n\
Subject: Undelivered Mail Returned to Sender\r\n\
Content-Type: multipart/report; report-type=delivery-status; boundary=\"r\"\r\n\
\r\n\
--r\r\n\
Content-Type: text/plain\r\n\
\r\n\
Your message could not be delivered.\r\n\
--r--\r\n";
    assert_eq!(skipped(bounce, &sent()), "bounce");
    let empty_return = "Return-Path: <>\r\nFrom: ada@example.com\r\nSubject: x\r\n\r\nx\r\n";
    assert_eq!(skipped(empty_return, &sent()), "bounce");
    let daemon = "From: MAILER-DAEMON@example.com\r\nSubject: failure\r\n\r\nfailed\r\n";
    assert_eq!(skipped(daemon, &sent()), "automatic sender");
    let digest = "From: analytical-l-request@example.com\r\nSubject: analytical-l Digest, Vol 12, Issue 3\r\n\r\nToday's topics: gears\r\n";
    assert_eq!(skipped(digest, &sent()), "list digest");
}

#[test]
fn a_message_without_words_of_its_own_or_an_id_or_a_sender() {
    let bare_forward = "From: ada@example.com\r\nSubject: Fwd: COBOL\r\nDate: Wed, 4 Feb 2026 09:00:00 +0000\r\n\r\n---------- Forwarded message ---------\r\nFrom: Grace\r\n\r\nRecords.\r\n";
    assert_eq!(skipped(bare_forward, &sent()), "no words of its own");

    let no_id = "From: ada@example.com\r\nSubject: Gears\r\nDate: Wed, 4 Feb 2026 09:00:00 +0000\r\n\r\nThe gears mesh.\r\n";
    let first = item(no_id, &sent());
    assert!(first.id.starts_with("sha256:"), "{}", first.id);
    assert_eq!(first.id, item(no_id, &sent()).id);
    let other = no_id.replace("Gears", "Levers");
    assert_ne!(first.id, item(&other, &sent()).id);

    let no_date = "From: ada@example.com\r\nSubject: Gears\r\n\r\nThe gears mesh.\r\n";
    let arrived = DateTime::from_timestamp(1_770_000_000, 0);
    let dated = judge(
        no_date.as_bytes(),
        &sent(),
        Place { arrived, ..place() },
        &Senders::default(),
    );
    assert!(matches!(dated, Found::Item(item) if Some(item.date) == arrived));
    let undated = judge(no_date.as_bytes(), &sent(), place(), &Senders::default());
    assert!(
        matches!(&undated, Found::Bad { origin, problem, position }
            if origin == "Sent.mbox: message at byte 0" && problem.contains("no Date") && position.as_deref() == Some("42")),
        "{undated:?}"
    );

    for raw in [
        "",
        "Subject: no sender\r\n\r\nbody\r\n",
        "\u{0}\u{1}garbage",
    ] {
        assert!(
            matches!(
                judge(raw.as_bytes(), &sent(), place(), &Senders::default()),
                Found::Bad { .. }
            ),
            "{raw:?}"
        );
    }
}

/// A message as a list archive holds it (lore.kernel.org's mbox of a
/// subsystem's list): the list's copy, marked `Precedence: bulk` with its
/// `List-Id`, is what the member sent.
const LIST_COPY: &str = "From: Paul Moore <paul@paul-moore.com>\r\n\
Date: Tue, 14 Jan 2025 17:09:30 -0500\r\n\
Subject: Re: [PATCH] selinux: avoid dumping the policy when it is unchanged\r\n\
To: selinux@vger.kernel.org\r\n\
Message-ID: <CAHC9VhQ1@mail.gmail.com>\r\n\
Precedence: bulk\r\n\
X-Mailing-List: selinux@vger.kernel.org\r\n\
List-Id: <selinux.vger.kernel.org>\r\n\
List-Subscribe: <mailto:selinux+subscribe@vger.kernel.org>\r\n\
List-Unsubscribe: <mailto:selinux+unsubscribe@vger.kernel.org>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: text/plain; charset=\"UTF-8\"\r\n\
\r\n\
Merged into selinux/dev, thanks. The policy loader no longer rewrites\r\n\
an unchanged policy on every boot.\r\n";

#[test]
fn a_lists_copy_of_a_members_message_is_what_the_member_sent() {
    let copy = item(LIST_COPY, &sent());
    assert_eq!(
        copy.actions[0].0.email.as_deref(),
        Some("paul@paul-moore.com")
    );
    let marked_list = LIST_COPY.replace("Precedence: bulk", "Precedence: list");
    assert_eq!(item(&marked_list, &sent()).actions.len(), 1);
    // Without a list's headers, bulk mail is still automatic, and so is an
    // auto-reply a list distributed.
    let bulk = LIST_COPY.replace("List-Id: <selinux.vger.kernel.org>\r\n", "");
    assert_eq!(skipped(&bulk, &sent()), "automatic (Precedence)");
    let vacation = LIST_COPY.replace("Precedence: bulk", "Auto-Submitted: auto-replied");
    assert_eq!(skipped(&vacation, &sent()), "automatic (Auto-Submitted)");
}
