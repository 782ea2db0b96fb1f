//! Kenning's domain: users, their lifecycle, the value types that make up a
//! user profile, the parameters of a user listing, credential kinds and
//! scopes, and validation errors that name the field and the rule; the
//! upload model (what a connector sends, parsed with every problem at
//! once), topics, and the expertise rules that score, decay and rank what
//! users know.
//!
//! The crate is pure: no IO, no clock, no async, no database or HTTP types.
//! Every moment it needs ("now") comes in as an argument.

#![warn(missing_docs)]

mod audit;
mod credential;
mod cursor;
mod expertise;
mod filter;
mod group;
mod paging;
mod privacy;
mod profile;
mod session;
mod source;
mod topic;
mod upload;
mod user;
mod validation;
mod webhook;

pub use audit::{
    credential_issued, credential_revoked, declared_topics_changed, group_changed, group_created,
    group_deleted, group_members_changed, hidden_topics_changed, parse_audit_cursor, user_changes,
    user_created, user_exported, user_forgotten, user_learning_changed, user_signed_in,
    user_signed_out, Actor, Attribution, AuditEntry, Change, ChangeKind, Channel, ResourceKind,
    UnknownChangeKind, NOBODY,
};
pub use credential::{CredentialKind, CredentialName, Lifetime, Scope, UnknownScope};
pub use cursor::UserCursor;
pub use expertise::{
    commonest_labels, dropped_words, entity_topics, holders, profile_order, query_terms,
    rank_experts, read_query, related_topics, subject_known, with_declared, worth_showing,
    ActionTopic, Answer, Band, DeclaredTopic, EntityTopic, Evidence, Expert, LabelledStanding,
    Population, QueryTerm, ReadTerm, RelatedTopic, ScoredTopic, Scoring, ScoringError, Standing,
    StandingChanges, StoredStanding, TextTrace, TopicLabel, Verdict, ACTIONS_COUNTED,
    MAX_DECLARED_TOPICS, NEAREST_FLOOR, PHRASES_PER_TEXT, THE_PERSON, WORDS_PER_TEXT,
};
pub use filter::{
    Comparison, FilterAttribute, FilterError, FilterOperator, FilterValue, UserFilter,
};
pub use group::{
    DisplayName, Group, GroupAttributes, GroupError, GroupFilter, GroupId, GroupInput, GroupParts,
    MAX_MEMBERS,
};
pub use paging::{
    AuditLimit, ExpertsLimit, Limit, Offset, RelatedTopicsLimit, SearchText, UserTopicsLimit,
};
pub use privacy::{
    learning_rule_changed, AskedCount, AskedSubject, Learning, LearningRule, LearningRules,
    RuleInForce, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS,
};
pub use profile::{
    About, Company, CountryId, Department, Email, EmploymentStart, ExternalId, FirstName,
    LanguageId, LastName, Location, Position, ShownName, UserKey, UserName,
};
pub use session::{SessionPolicy, SessionState, SignInMethod, SIGN_IN_LINK_MINUTES};
pub use source::{
    IdentityInput, RefusalCode, RunCounts, RunError, RunInput, RunReport, SourceIdentity,
    SourceKind, SourceName,
};
pub use topic::{
    holds_subject, is_topic_key, query_text, TextFormat, TextWord, Topic, TopicText,
    MAX_HIDDEN_TOPICS, MAX_QUERY_CHARS, MAX_TOPIC_WORDS, MAX_WORD_CHARS,
};
pub use upload::{
    ActionAlias, ActionType, Descriptor, EntityType, Raw, TextInput, Upload, UploadInput,
    UploadText,
};
pub use user::{
    Erasure, GracePeriod, InconsistentUser, NewUser, NewUserInput, Patch, Profile, Status,
    StatusChange, User, UserError, UserId, UserParts, UserPatch, UserPatchInput,
};
pub use validation::{Collector, FieldViolation, Rule, ValidationErrors};
pub use webhook::{
    gives_up, parse_subscription, retry_delay, Subscription, SubscriptionInput, SubscriptionState,
    FIRST_RETRY, LONGEST_RETRY, MAX_URL_LEN,
};
