//! Rules over a whole body, checked before every write: `#[docmodel(validate = path)]` and
//! `#[docmodel(garde)]`.

use std::fmt;

use crate::find::Field;

/// One failing field of a body: where, as a JSON path (`"phones[1]"`, `"home.geo.lat"`), and why.
///
/// A model's `validate` function returns every failing field at once, so that a caller can show them all:
///
/// ```
/// use docmodel::{DocModel, Error, FieldError};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Serialize, Deserialize, DocModel)]
/// #[serde(rename_all = "camelCase")]
/// #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", validate = check_user)]
/// struct User {
///     user_id: u64,
///     first_name: String,
///     phones: Vec<String>,
/// }
///
/// fn check_user(user: &User) -> Result<(), Vec<FieldError>> {
///     let mut errors = Vec::new();
///     if user.first_name.is_empty() {
///         errors.push(FieldError::at(&User::fields().first_name, "is empty"));
///     }
///     for (i, phone) in user.phones.iter().enumerate() {
///         if phone.len() != 10 {
///             errors.push(FieldError::new(format!("phones[{i}]"), format!("{phone:?} does not have 10 digits")));
///         }
///     }
///     if errors.is_empty() { Ok(()) } else { Err(errors) }
/// }
///
/// let user = User { user_id: 1, first_name: String::new(), phones: vec!["555".into()] };
/// let err = docmodel::Doc::new(user).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "document `user::1`: 2 invalid values: `firstName`: is empty; `phones[0]`: \"555\" does not have 10 digits"
/// );
/// let Error::Validation { errors, .. } = err else { unreachable!() };
/// assert_eq!(errors[0].path(), "firstName");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldError {
    path: String,
    message: String,
}

impl FieldError {
    /// A failure of the value at `path`, the JSON path as stored (`"phones[1]"`, `"address.city"`).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// A failure of the value at one of the model's typed field paths (`&User::fields().first_name`),
    /// so that the path follows the stored names, renames included.
    pub fn at<M, V>(field: &Field<M, V>, message: impl Into<String>) -> Self {
        FieldError::new(field.path().join("."), message)
    }

    /// The JSON path of the failing value.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.as_str() {
            "" => f.write_str(&self.message),
            path => write!(f, "`{path}`: {}", self.message),
        }
    }
}

/// `invalid value for `name`: message`, or `3 invalid values: `a`: ...; `b`: ...`.
pub(crate) struct Listed<'a>(pub(crate) &'a [FieldError]);

impl fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => f.write_str("invalid value"),
            [one] if one.path.is_empty() => write!(f, "invalid value: {}", one.message),
            [one] => write!(f, "invalid value for `{}`: {}", one.path, one.message),
            all => {
                write!(f, "{} invalid values: ", all.len())?;
                for (i, error) in all.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{error}")?;
                }
                Ok(())
            }
        }
    }
}

/// What the derive calls for `#[docmodel(garde)]`: the model's garde rules, each failure at its JSON path.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is checked by garde (`#[docmodel(garde)]`), which needs `#[derive(garde::Validate)]` on \
               it, a `Context` that implements `Default`, and docmodel's `garde` feature",
    label = "not validated by garde"
)]
pub trait GardeModel {
    /// Appends the failures of the model's garde rules to `out`; `names` maps a top-level Rust field name
    /// to its stored name.
    fn garde_errors(&self, names: &[(&str, &str)], out: &mut Vec<FieldError>);
}

#[cfg(feature = "garde")]
impl<T> GardeModel for T
where
    T: garde::Validate,
    T::Context: Default,
{
    fn garde_errors(&self, names: &[(&str, &str)], out: &mut Vec<FieldError>) {
        let Err(report) = garde::Validate::validate(self) else {
            return;
        };
        for (path, error) in report.iter() {
            out.push(FieldError::new(
                stored_path(&path.to_string(), names),
                error.message(),
            ));
        }
    }
}

/// `path` (garde's, of Rust names) with its first member renamed as the model stores it.
#[cfg_attr(not(feature = "garde"), allow(dead_code))]
fn stored_path(path: &str, names: &[(&str, &str)]) -> String {
    let end = path.find(['.', '[']).unwrap_or(path.len());
    let (head, rest) = path.split_at(end);
    match names.iter().find(|(rust, _)| *rust == head) {
        Some((_, stored)) => format!("{stored}{rest}"),
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_renamed_at_its_first_member_only() {
        let names = [("first_name", "firstName"), ("home", "homeAddress")];
        assert_eq!(stored_path("first_name", &names), "firstName");
        assert_eq!(stored_path("home.zip_code", &names), "homeAddress.zip_code");
        assert_eq!(stored_path("home[2]", &names), "homeAddress[2]");
        assert_eq!(stored_path("other", &names), "other");
        assert_eq!(stored_path("", &names), "");
    }

    #[test]
    fn one_failure_and_several_read_differently() {
        let one = [FieldError::new("name", "is empty")];
        assert_eq!(
            Listed(&one).to_string(),
            "invalid value for `name`: is empty"
        );
        let two = [FieldError::new("a", "x"), FieldError::new("b[1]", "y")];
        assert_eq!(
            Listed(&two).to_string(),
            "2 invalid values: `a`: x; `b[1]`: y"
        );
        let whole = [FieldError::new(
            "",
            "refused by `check`, which named no field",
        )];
        assert_eq!(
            Listed(&whole).to_string(),
            "invalid value: refused by `check`, which named no field"
        );
    }
}
