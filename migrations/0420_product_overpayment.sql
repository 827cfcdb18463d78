-- 0420 product overpayment: whether a loan product accepts repayments above what a loan owes.
-- Why (issue 9): a repayment of 99,999,999,999 on a 1,100 loan was accepted in one click and
-- became a credit balance. A repayment above the loan's total outstanding is now refused unless its
-- product allows overpayment, and even then only with the caller's explicit confirmation
-- (confirmOverpayment). Off by default: an overpayment is money the lender owes back.
alter table loan_products add column allow_overpayment boolean not null default false;
