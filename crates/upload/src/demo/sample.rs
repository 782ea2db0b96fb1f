//! The sample organisation: a dozen people of a made-up company, each
//! with a subject of their own and one they help with, and the sentences
//! their documents, chats and e-mails are made of. Written for Kenning;
//! the subjects are far enough apart that each query of the README has
//! one clear first answer.

/// A subject, and what is written about it.
pub struct Subject {
    /// Its name, for the summary.
    pub name: &'static str,
    /// What someone asks when looking for who knows it.
    pub question: &'static str,
    pub sentences: &'static [&'static str],
}

/// A person of the sample, with their subject and the one they help with.
pub struct Person {
    pub firstname: &'static str,
    pub lastname: &'static str,
    pub department: &'static str,
    pub position: &'static str,
    /// Index into [`SUBJECTS`].
    pub main: usize,
    /// Index into [`SUBJECTS`].
    pub side: usize,
}

/// The company's mail domain (reserved for examples, RFC 2606).
pub const DOMAIN: &str = "harbourfinch.example";

pub const SUBJECTS: [Subject; 11] = [
    Subject {
        name: "PostgreSQL replication and backups",
        question: "postgres replication lag",
        sentences: &[
            "Streaming replication to the standby fell behind during the nightly batch, so replication lag reached four minutes.",
            "The PostgreSQL primary now ships its write-ahead log to object storage every sixty seconds.",
            "A point-in-time recovery drill restored the billing database from the base backup and replayed the WAL archive.",
            "Autovacuum could not keep up with the invoices table; raising the cost limit brought the dead tuples down.",
            "Logical replication feeds the reporting database without locking the primary.",
            "We tested a failover with Patroni: the standby was promoted in eleven seconds and the replication slots survived.",
            "Slow queries on the orders table came from a missing index on the customer id; EXPLAIN ANALYZE showed a sequential scan.",
            "pgBackRest keeps fourteen days of full backups, and the restore test runs every Sunday.",
            "Connection pooling with PgBouncer in transaction mode halved the number of PostgreSQL backends.",
            "The replica's replication lag alarm fires above thirty seconds and pages the database on-call.",
        ],
    },
    Subject {
        name: "Kubernetes and Helm",
        question: "helm chart upgrade",
        sentences: &[
            "The Helm chart for the checkout service now sets resource requests and limits for every container.",
            "A Kubernetes node pool upgrade drained the pods one node at a time, guarded by pod disruption budgets.",
            "The ingress controller terminates TLS and routes traffic to the services by host name.",
            "A failed Helm upgrade was rolled back with helm rollback after the readiness probe never passed.",
            "Horizontal pod autoscaling scales the API deployment between three and twelve replicas on CPU.",
            "Secrets are mounted from the external secrets operator instead of being written into the Helm values.",
            "The cluster autoscaler added nodes when pending pods could not be scheduled.",
            "We split the monolithic Helm chart into one chart per service with a shared library chart.",
            "Liveness probes restarted the worker pods in a loop because the probe timeout was shorter than a garbage collection pause.",
            "Namespaces, network policies and resource quotas keep each team's workloads apart in the shared cluster.",
        ],
    },
    Subject {
        name: "CI pipelines",
        question: "flaky tests in the build pipeline",
        sentences: &[
            "The build pipeline caches the dependency layers, which cut the average run from forty minutes to twelve.",
            "Flaky tests are quarantined automatically after three failures in a week and reported to their owners.",
            "Integration tests now run in parallel on four runners, each with its own disposable database container.",
            "The release pipeline signs every container image and promotes it to staging after the smoke tests pass.",
            "A merge queue rebases each pull request on main and runs the full test suite before it merges.",
            "Build artefacts are kept for thirty days so that any release can be rebuilt and compared byte for byte.",
            "The pipeline's static analysis step blocks a merge on a new lint warning.",
            "We moved the nightly end-to-end tests to a scheduled pipeline that posts its results to the team channel.",
            "Test sharding balances the suite by the duration each test took in the last green run.",
            "A shared build cache keyed by the lock file made clean builds on the runners three times faster.",
        ],
    },
    Subject {
        name: "Churn prediction",
        question: "customer churn model",
        sentences: &[
            "The churn model is a gradient boosted tree over weekly active seats, support tickets and late invoices.",
            "Calibration matters more than accuracy, so reliability diagrams of the churn probabilities are checked every month.",
            "A drop in weekly active seats over three weeks is the strongest signal that a customer will cancel.",
            "Seasonality confused the first churn model, since schools pause in summer; features now compare the same weeks of last year.",
            "Feature drift is monitored with the population stability index, and the model is retrained on the first of each month.",
            "Account managers receive the ten accounts most at risk of churn each Monday with the reasons the model gives.",
            "SHAP values explain each churn prediction to the account manager in plain words.",
            "Cross-validation by time, never by random split, keeps the churn model from learning the future.",
            "The retention campaign targeted customers above a churn probability of forty percent and halved cancellations among them.",
            "Survival analysis estimates how long a customer stays, which the finance forecast now uses.",
        ],
    },
    Subject {
        name: "Payroll and pensions",
        question: "pension contributions payroll",
        sentences: &[
            "Payroll runs on the twenty-fifth; overtime approved after the twentieth is paid the following month.",
            "The employer pension contribution rises to eight percent in April, and payroll must update the rates before the cut-off.",
            "Salary sacrifice arrangements reduce the gross pay before tax and national insurance are calculated.",
            "Every change of bank details is confirmed by a call to the employee before payroll accepts it.",
            "Auto-enrolment assesses each new joiner for the workplace pension in their first pay period.",
            "Payslips now show the pension contributions of employer and employee on separate lines.",
            "The year-end payroll reconciliation matched the tax office's figures to the penny.",
            "Statutory sick pay and maternity pay are calculated by the payroll system from the absence records.",
            "Pension opt-outs must be processed within a month, with the contributions refunded in the next payroll.",
            "The payroll audit asked for evidence of approval for every one-off bonus payment.",
        ],
    },
    Subject {
        name: "Security certificates and incidents",
        question: "tls certificate expiry",
        sentences: &[
            "An expired TLS certificate on the partner API caused an outage; certificates now renew automatically thirty days ahead.",
            "The incident response runbook names an incident commander, a scribe and a communications lead for every severity one.",
            "Phishing simulations run every quarter, and the click rate fell from twelve to three percent.",
            "Certificate transparency logs are monitored for certificates issued for our domains by anyone else.",
            "The post-incident review found that the leaked access key had been rotated within nine minutes.",
            "Mutual TLS between services uses short-lived certificates issued by the internal certificate authority.",
            "Security patches for critical vulnerabilities are applied within forty-eight hours on every server.",
            "Hardware security keys are now required for administrator accounts.",
            "The penetration test found an open redirect in the login page, fixed the same week.",
            "Audit logs of privileged access are kept for a year in write-once storage.",
        ],
    },
    Subject {
        name: "Accessibility",
        question: "screen reader accessibility",
        sentences: &[
            "The checkout form failed with screen readers because its error messages were not announced; aria-live fixed it.",
            "Every interactive element must be reachable by keyboard, with a visible focus outline.",
            "Colour contrast of the buttons was raised to meet WCAG 2.2 level AA.",
            "We test each release with NVDA and VoiceOver on the three most used pages.",
            "Images carry alternative text, and decorative ones an empty alt attribute so screen readers skip them.",
            "The date picker was replaced with plain inputs, since the old widget trapped keyboard focus.",
            "Accessibility audits now run in the pipeline with axe, and a new violation fails the build.",
            "Headings follow a strict outline so that screen reader users can jump between sections.",
            "Captions and transcripts are published for every product video.",
            "The design system documents the accessible name of each component and how it is announced.",
        ],
    },
    Subject {
        name: "Data protection and contracts",
        question: "gdpr data processing agreement",
        sentences: &[
            "Every supplier that handles personal data signs a data processing agreement before the contract starts.",
            "Subject access requests under the GDPR are answered within one month, with a copy of every record that names the person.",
            "The GDPR records of processing activities list each purpose, its lawful basis and how long the data is kept.",
            "Standard contractual clauses cover the transfers of personal data to the support team outside the EU.",
            "A data protection impact assessment is required before the new customer analytics go live.",
            "The master services agreement caps liability at twelve months of fees, except for breaches of confidentiality.",
            "Personal data breaches are reported to the supervisory authority within seventy-two hours, as the GDPR requires.",
            "The retention schedule deletes applicant data six months after a hiring decision.",
            "Contract renewals are tracked with their notice periods so that none renews by silence.",
            "The cookie banner asks for consent before any analytics cookie is set.",
        ],
    },
    Subject {
        name: "Office move and facilities",
        question: "office lease and move",
        sentences: &[
            "The new office lease starts in April for five years, with an option to leave after three.",
            "Moving day is planned for a weekend so that the network cut-over does not interrupt customer support.",
            "Facilities is tendering the desks and chairs in two lots; the acoustic panels are specified separately.",
            "Meeting rooms line the core of each floor, with two quiet rooms per wing.",
            "Bicycle storage and showers are finished before staff parking at the old site ends.",
            "The fit-out period is rent free for four months, and service charge increases are capped.",
            "Desk booking opens a week ahead, and unused bookings are released at ten.",
            "The building's fire evacuation drill runs twice a year, with wardens on every floor.",
            "Removal crates are labelled by team and floor, and each team packs its own cupboards.",
            "The landlord repairs the air conditioning under the lease; facilities logs each fault with them.",
        ],
    },
    Subject {
        name: "Customer support",
        question: "support ticket escalation",
        sentences: &[
            "Support tickets that stay unanswered for four hours escalate to the shift lead.",
            "The first response time fell to nineteen minutes after the macros for password resets were rewritten.",
            "Customer satisfaction surveys are sent after each ticket closes, and every poor rating is reviewed.",
            "The onboarding webinar for new customers runs every Tuesday and covers single sign-on and imports.",
            "Escalations to engineering carry the steps to reproduce, the account and the logs the customer sent.",
            "The help centre articles with the most failed searches are rewritten first.",
            "Weekend support is covered by a rota of two agents with an on-call engineer behind them.",
            "Refund requests above the agent's limit need a team lead's approval in the ticket.",
            "Chat support hands over to a ticket when a conversation needs more than one day.",
            "The support knowledge base is reviewed each quarter, and outdated articles are archived.",
        ],
    },
    Subject {
        name: "Search marketing and newsletters",
        question: "newsletter open rate",
        sentences: &[
            "The monthly newsletter's open rate rose to forty-one percent after subject lines were tested on a tenth of the list.",
            "Search engine optimisation of the pricing page doubled the organic sign-ups in a quarter.",
            "The newsletter list is cleaned every six months of addresses that never opened a message.",
            "Landing pages for paid search campaigns are tested against each other for two weeks.",
            "Keyword research showed that customers search for integrations more than for features.",
            "Unsubscribe links work in one click, and the newsletter honours them at once.",
            "Backlinks from partner blogs lifted the domain's search ranking for the main product terms.",
            "The webinar invitations go out in the newsletter three weeks ahead, with a reminder the day before.",
            "Marketing attribution credits the newsletter with a quarter of the trial sign-ups.",
            "Page speed of the blog improved after images were compressed, which search rankings reward.",
        ],
    },
];

pub const PEOPLE: [Person; 12] = [
    Person {
        firstname: "Priya",
        lastname: "Raman",
        department: "Platform",
        position: "Database engineer",
        main: 0,
        side: 2,
    },
    Person {
        firstname: "Tomás",
        lastname: "Ortega",
        department: "Platform",
        position: "Site reliability engineer",
        main: 1,
        side: 5,
    },
    Person {
        firstname: "Omar",
        lastname: "Haddad",
        department: "Platform",
        position: "Build engineer",
        main: 2,
        side: 1,
    },
    Person {
        firstname: "Mei",
        lastname: "Chen",
        department: "Data",
        position: "Data scientist",
        main: 3,
        side: 10,
    },
    Person {
        firstname: "Jonas",
        lastname: "Weber",
        department: "Finance",
        position: "Payroll manager",
        main: 4,
        side: 7,
    },
    Person {
        firstname: "Amara",
        lastname: "Okafor",
        department: "Security",
        position: "Security engineer",
        main: 5,
        side: 7,
    },
    Person {
        firstname: "Luca",
        lastname: "Bianchi",
        department: "Product",
        position: "Frontend engineer",
        main: 6,
        side: 2,
    },
    Person {
        firstname: "Sofia",
        lastname: "Lindqvist",
        department: "Legal",
        position: "Counsel",
        main: 7,
        side: 4,
    },
    Person {
        firstname: "Daniel",
        lastname: "Kim",
        department: "Operations",
        position: "Facilities manager",
        main: 8,
        side: 9,
    },
    Person {
        firstname: "Hannah",
        lastname: "Schmidt",
        department: "Customer success",
        position: "Support lead",
        main: 9,
        side: 10,
    },
    Person {
        firstname: "Grace",
        lastname: "Mwangi",
        department: "Marketing",
        position: "Growth marketer",
        main: 10,
        side: 3,
    },
    Person {
        firstname: "Elena",
        lastname: "Petrova",
        department: "Platform",
        position: "Platform engineer",
        main: 1,
        side: 0,
    },
];

impl Person {
    /// The person's work address.
    pub fn email(&self) -> String {
        let fold = |s: &str| {
            s.chars()
                .map(|c| match c {
                    'á' => 'a',
                    other => other.to_ascii_lowercase(),
                })
                .collect::<String>()
        };
        format!("{}.{}@{DOMAIN}", fold(self.firstname), fold(self.lastname))
    }
}
