//! The published client documents, verbatim.

pub const GET_USERS: &str = "query getUsers($searchText: String, $offset: Offset, $limit: Limit) { users(searchText: $searchText, offset: $offset, limit:$limit){ globalUserId, externalId, firstname, lastname, email, location, department, position, gender, about, languageId, employmentStart, isSystem, isHidden, avatarUrl, dateDeleted } }";

pub const GET_USER: &str = "query getUser($globalUserId: UUID!) { user(globalUserId: $globalUserId) { globalUserId firstname lastname email languageId avatarUrl company department position location about countryId created dateDeleted isFederated } }";

pub const CREATE_USER: &str = "mutation createUser($createUserInput: CreateUserInput!) { createUser(createUserInput: $createUserInput) { globalUserId } }";

pub const UPDATE_USER: &str = "mutation updateUser($updateUserInput: UpdateUserInput!) { updateUser(updateUserInput: $updateUserInput) { firstname lastname email externalId languageId countryId gender company department position location about globalUserId } }";

pub const UPDATE_USER_EMAIL: &str = "mutation updatePrivilegedUserAndEmail($updateUserEmailInput: UpdateUserEmailInput!) { updateUserEmail(updateUserEmailInput: $updateUserEmailInput) { globalUserId email } }";

pub const DEACTIVATE_USER: &str = "mutation deactivateUser($globalUserId: UUID!) { deactivateUser(globalUserId: $globalUserId) { globalUserId } }";

pub const REACTIVATE_USER: &str = "mutation reactivateUser($globalUserId: UUID!) { reactivateUser(globalUserId: $globalUserId) { globalUserId } }";

pub const DELETE_USER: &str = "mutation deleteUser($globalUserId: UUID!) { deleteUser(globalUserId: $globalUserId) { globalUserId } }";

pub const CANCEL_DELETE: &str = "mutation cancelDelete($globalUserId: UUID!) { cancelDelete(globalUserId: $globalUserId) { globalUserId } }";

pub const USERS_CONNECTION: &str = "query usersConnection($searchText: String, $first: Int, $after: String) { usersConnection(searchText: $searchText, first: $first, after: $after) { edges { cursor node { globalUserId firstname lastname } } pageInfo { hasNextPage endCursor } } }";
