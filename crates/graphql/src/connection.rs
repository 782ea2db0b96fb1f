//! Users a page at a time by cursor, in the shape GraphQL clients know
//! from the cursor connections convention: edges with their cursors, and
//! the page's `pageInfo`.

use juniper::graphql_object;
use kenning_domain::UserCursor;
use kenning_ports::UserPage;

use crate::context::Context;
use crate::user::UserObject;

/// A page of users read by cursor.
#[derive(Debug)]
pub struct UserConnection(pub UserPage);

impl UserConnection {
    /// The argument that says how many users a page holds.
    pub const FIRST: &'static str = "first";
}

#[graphql_object(context = Context)]
impl UserConnection {
    /// The users of the page, in listing order, each with its cursor.
    fn edges(&self) -> Vec<UserEdge<'_>> {
        self.0.users.iter().map(UserEdge).collect()
    }

    /// Whether more users follow, and where the next page starts.
    fn page_info(&self) -> PageInfo {
        PageInfo {
            has_next_page: self.0.more,
            end_cursor: self.0.users.last().map(|u| UserCursor::of(u).to_string()),
        }
    }
}

/// A user on a page, and the cursor of its position.
#[derive(Debug)]
pub struct UserEdge<'a>(&'a kenning_domain::User);

#[graphql_object(context = Context)]
impl UserEdge<'_> {
    /// Opaque: passed as `after`, the next page starts right after this
    /// user.
    fn cursor(&self) -> String {
        UserCursor::of(self.0).to_string()
    }

    /// The user.
    fn node(&self) -> UserObject {
        UserObject(self.0.clone())
    }
}

/// Where a page stands in the listing.
#[derive(Debug, juniper::GraphQLObject)]
pub struct PageInfo {
    /// Whether more users follow this page.
    has_next_page: bool,
    /// The cursor of the page's last user, to pass as `after` for the next
    /// page; null when the page is empty.
    end_cursor: Option<String>,
}
