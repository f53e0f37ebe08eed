-- Email dedup keys name the sender after the Message-ID ("email:<Message-ID> <sender>"), so that a stranger
-- who sends a message with the Message-ID of one not yet read cannot have the real one skipped as its
-- duplicate. Keys stored before get the sender of their message: the reporter, who put it into the mailbox,
-- or without one the customer, who then sent it. Keys of messages without a Message-ID (email:sha256:…)
-- already cover the sender.
UPDATE records
SET dedup_key = dedup_key || ' <' || CASE WHEN reporter <> '' THEN reporter ELSE customer_email END || '>'
WHERE source = 'Email' AND dedup_key LIKE 'email:%' AND dedup_key NOT LIKE 'email:sha256:%'
  AND dedup_key NOT LIKE '% <%>';
