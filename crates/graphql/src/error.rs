//! Service errors as GraphQL errors.

use juniper::{FieldError, IntoFieldError, Object, ScalarValue, Value};
use kenning_app::ServiceError;
use kenning_domain::ValidationErrors;

/// A [`ServiceError`] on its way into a GraphQL response.
///
/// `extensions.code` is the stable code; `ValidationError` adds `field` (the
/// first bad field), `limit` (for length and range rules) and `fields` (every
/// bad field with its problem); `Conflict` adds `field`; `InvalidTransition`
/// adds `status`. `Internal` never carries internals.
#[derive(Debug)]
pub struct ApiError(pub ServiceError);

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        Self(e)
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(e: ValidationErrors) -> Self {
        Self(ServiceError::Validation(e))
    }
}

fn string<S: ScalarValue>(s: &str) -> Value<S> {
    Value::scalar(s.to_owned())
}

impl<S: ScalarValue> IntoFieldError<S> for ApiError {
    fn into_field_error(self) -> FieldError<S> {
        let mut ext = Object::with_capacity(4);
        ext.add_field("code", string(self.0.code()));
        let message = match &self.0 {
            ServiceError::Validation(errors) => {
                let first = errors.first();
                ext.add_field("field", string(&first.field));
                if let Some(limit) = first.rule.limit() {
                    // Limits are small; GraphQL integers are 32-bit.
                    let limit = i32::try_from(limit).unwrap_or(i32::MAX);
                    ext.add_field("limit", Value::scalar(limit));
                }
                let fields = errors
                    .violations()
                    .iter()
                    .map(|v| {
                        let mut o = Object::with_capacity(2);
                        o.add_field("field", string(&v.field));
                        o.add_field("problem", string(&v.rule.to_string()));
                        Value::Object(o)
                    })
                    .collect();
                ext.add_field("fields", Value::List(fields));
                self.0.to_string()
            }
            ServiceError::Conflict { field, .. } => {
                ext.add_field("field", string(field));
                self.0.to_string()
            }
            ServiceError::StaleVersion { .. } => {
                ext.add_field("field", string("version"));
                self.0.to_string()
            }
            ServiceError::InvalidTransition { status, .. } => {
                ext.add_field("status", string(status));
                self.0.to_string()
            }
            ServiceError::GracePeriodExpired { scheduled_for } => {
                ext.add_field("scheduledFor", string(&scheduled_for.to_rfc3339()));
                self.0.to_string()
            }
            ServiceError::Internal(_) => {
                log::error!("{}", self.0.log_message());
                "internal error".to_owned()
            }
            _ => self.0.to_string(),
        };
        FieldError::new(message, Value::Object(ext))
    }
}

#[cfg(test)]
mod tests {
    use juniper::DefaultScalarValue;
    use kenning_app::Missing;

    use super::*;

    fn field_error(e: ServiceError) -> FieldError<DefaultScalarValue> {
        ApiError(e).into_field_error()
    }

    fn code(error: &FieldError<DefaultScalarValue>) -> Option<&Value<DefaultScalarValue>> {
        error
            .extensions()
            .as_object_value()
            .and_then(|ext| ext.get_field_value("code"))
    }

    #[test]
    fn not_found_names_what_was_not_found() {
        let user = field_error(ServiceError::NotFound(Missing::User));
        assert_eq!(code(&user), Some(&string("NotFound")));
        assert_eq!(user.message(), "no user has this globalUserId");

        let credential = field_error(ServiceError::NotFound(Missing::Credential));
        assert_eq!(code(&credential), Some(&string("NotFound")));
        assert_eq!(credential.message(), "no live credential has this id");
        assert!(!credential.message().contains("user"));
    }
}
