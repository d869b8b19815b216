-- Messages from the contact form; each is also mailed to CONTACT_INBOX.
create table contact_messages (
  id uuid primary key,
  name text not null,
  email text not null,
  topic text not null,
  message text not null,
  client_ip text not null default '',
  created_at timestamptz not null default now()
);
create index contact_messages_created on contact_messages (created_at desc);
