DROP TABLE user_group_members;
DROP TABLE user_groups;
