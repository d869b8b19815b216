-- Never used: the admin dashboard issue defines the tables it needs.
drop table if exists activity_events;
