//! The tables, described once for both backends. Only types that SQLite and
//! PostgreSQL map the same way are used: ids are text, moments are UTC
//! `TIMESTAMP`s, booleans are `BOOLEAN`.

diesel::table! {
    users (id) {
        id -> Text,
        status -> Text,
        deletion_scheduled_for -> Nullable<Timestamp>,
        date_deleted -> Nullable<Timestamp>,
        created -> Timestamp,
        version -> BigInt,
        is_system -> Bool,
        is_hidden -> Bool,
        is_federated -> Bool,
        email -> Nullable<Text>,
        email_key -> Nullable<Text>,
        firstname -> Text,
        lastname -> Text,
        external_id -> Nullable<Text>,
        language_id -> Nullable<Text>,
        location -> Nullable<Text>,
        about -> Nullable<Text>,
        country_id -> Nullable<Text>,
        company -> Nullable<Text>,
        department -> Nullable<Text>,
        position -> Nullable<Text>,
        employment_start -> Nullable<Date>,
        gender -> Nullable<Text>,
        avatar_url -> Nullable<Text>,
        search_text -> Nullable<Text>,
        modified -> Nullable<Timestamp>,
        user_name -> Nullable<Text>,
        user_name_key -> Nullable<Text>,
        display_name -> Nullable<Text>,
        learning_choice -> Nullable<Bool>,
        learns -> Bool,
    }
}

diesel::table! {
    learning_rules (kind, value) {
        kind -> Text,
        value -> Text,
        set_at -> Timestamp,
        credential_id -> Nullable<Text>,
        actor_name -> Text,
        channel -> Text,
    }
}

diesel::table! {
    asked_subjects (day, subject_key, holders) {
        day -> Date,
        subject_key -> Text,
        label -> Text,
        holders -> Integer,
        asks -> BigInt,
    }
}

diesel::table! {
    credentials (id) {
        id -> Text,
        kind -> Text,
        name -> Text,
        scopes -> Text,
        secret_hash -> Text,
        created -> Timestamp,
        revoked -> Nullable<Timestamp>,
        first_of_kind -> Bool,
        issued_by -> Nullable<Text>,
        expires -> Nullable<Timestamp>,
    }
}

diesel::table! {
    actions (id) {
        id -> Text,
        user_id -> Text,
        entity_type -> Text,
        action_type -> Text,
        action_date -> Timestamp,
        alias -> Nullable<Text>,
        received -> Timestamp,
        taught -> Bool,
    }
}

diesel::table! {
    action_topics (action_id, topic_key) {
        action_id -> Text,
        user_id -> Text,
        topic_key -> Text,
        label -> Text,
        primary_relevance -> Double,
        default_relevance -> Double,
        secondary_relevance -> Double,
        relevance -> Double,
        shown -> Bool,
    }
}

diesel::table! {
    standings (user_id, topic_key) {
        user_id -> Text,
        topic_key -> Text,
        label -> Text,
        score -> Double,
        as_of -> Timestamp,
        rank_key -> Double,
        shown -> Bool,
        label_votes -> Double,
    }
}

diesel::table! {
    hidden_topics (user_id, topic_key) {
        user_id -> Text,
        topic_key -> Text,
    }
}

diesel::table! {
    declared_topics (user_id, topic_key) {
        user_id -> Text,
        topic_key -> Text,
        label -> Text,
        declared_at -> Timestamp,
    }
}

diesel::table! {
    expertise_settings (id) {
        id -> Integer,
        fingerprint -> Text,
    }
}

diesel::table! {
    learners (user_id) {
        user_id -> Text,
        actions -> Integer,
        ranked -> Bool,
    }
}

diesel::table! {
    topic_learners (topic_key) {
        topic_key -> Text,
        people -> BigInt,
    }
}

diesel::table! {
    learner_totals (shard) {
        shard -> Text,
        people -> BigInt,
        actions -> BigInt,
    }
}

diesel::table! {
    user_groups (id) {
        id -> Text,
        display_name -> Text,
        display_name_key -> Text,
        external_id -> Nullable<Text>,
        created -> Timestamp,
        modified -> Timestamp,
        version -> BigInt,
    }
}

diesel::table! {
    user_group_members (group_id, user_id) {
        group_id -> Text,
        user_id -> Text,
    }
}

diesel::table! {
    audit_entries (position) {
        position -> BigInt,
        at -> Timestamp,
        kind -> Text,
        resource_id -> Text,
        credential_id -> Nullable<Text>,
        actor_name -> Text,
        channel -> Text,
        fields -> Text,
    }
}

diesel::table! {
    webhook_subscriptions (id) {
        id -> Text,
        url -> Text,
        kinds -> Text,
        secret -> Text,
        created -> Timestamp,
        failing_since -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhook_outbox (id) {
        id -> BigInt,
        subscription_id -> Text,
        position -> BigInt,
        resource_id -> Text,
        attempts -> Integer,
        first_attempt -> Nullable<Timestamp>,
        next_attempt -> Timestamp,
        lease_until -> Nullable<Timestamp>,
        delivered -> Nullable<Timestamp>,
    }
}

diesel::table! {
    signin_links (secret_hash) {
        secret_hash -> Text,
        user_id -> Text,
        created -> Timestamp,
        expires -> Timestamp,
        used -> Nullable<Timestamp>,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        secret_hash -> Text,
        user_id -> Text,
        method -> Text,
        csrf -> Text,
        created -> Timestamp,
        last_seen -> Timestamp,
    }
}

diesel::table! {
    connector_runs (seq) {
        seq -> BigInt,
        id -> Text,
        source -> Text,
        name -> Text,
        started -> Timestamp,
        finished -> Timestamp,
        items_read -> BigInt,
        sent -> BigInt,
        known -> BigInt,
        not_found -> BigInt,
        failed -> BigInt,
        dry_run -> Bool,
        error -> Nullable<Text>,
        credential_id -> Text,
        credential_name -> Text,
        received -> Timestamp,
    }
}

diesel::table! {
    connector_run_refusals (run_id, code) {
        run_id -> Text,
        code -> Text,
        items -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    users,
    user_groups,
    user_group_members,
    actions,
    action_topics,
    standings,
    learners,
    topic_learners,
    learner_totals,
    hidden_topics,
    declared_topics,
    audit_entries,
    webhook_subscriptions,
    webhook_outbox,
    signin_links,
    sessions,
    learning_rules,
    asked_subjects,
    connector_runs,
    connector_run_refusals
);
