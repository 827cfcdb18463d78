-- 0102 credit balance refund: a transaction kind that pays an overpaid loan's credit balance back to
-- the borrower (Fineract CREDIT_BALANCE_REFUND), so an OVERPAID loan can close with obligations met.
alter type loan_transaction_type add value if not exists 'CREDIT_BALANCE_REFUND';
