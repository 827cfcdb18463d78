-- Issue 16: SFTP import buckets pin the server's host key (like scheduled exports do).
--  - import_buckets.host_key_sha256: the OpenSSH fingerprint (SHA256:…) of the host key the server
--    showed on the first successful connection ("test connection" or a run: trust on first use);
--    a server showing another key is refused. NULL = not pinned yet (or forgotten by an administrator).
alter table import_buckets add column host_key_sha256 text
  check (host_key_sha256 is null or host_key_sha256 ~ '^SHA256:[A-Za-z0-9+/]{43}$');
