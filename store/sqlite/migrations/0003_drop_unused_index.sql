-- Nothing reads records by company alone; the index only cost a page write per record with a customer.
DROP INDEX IF EXISTS records_company;
