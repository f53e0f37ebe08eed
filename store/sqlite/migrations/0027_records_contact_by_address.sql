-- Every create with a customer wrote an entry of records_contact, which only erasure read. Erasure now
-- finds a contact's records by their address (records_customer_listing, which creates keep anyway) and
-- keeps the erased contact as a scrubbed row instead of deleting it, so that no foreign-key check looks
-- for records by contact id.
DROP INDEX records_contact;
