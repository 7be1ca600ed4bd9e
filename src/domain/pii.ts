// Personal data in what a call record says (its transcript's turns, its
// summary), masked whole on the way in when the organization's `redact_pii`
// setting is on: e-mail addresses, card numbers (13 to 19 digits that pass
// the Luhn check) and phone numbers (7 to 15 digits, with the separators
// people say or type them with). What is masked is never stored.

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// A run of digits broken by single spaces, dashes, dots or parentheses, with an optional leading +.
const DIGIT_RUN = /\+?\(?\d(?:[\s().-]?\d){6,22}\)?/g;

const digitsOf = (text: string) => text.replace(/\D/g, '');

/** The Luhn check every payment card number passes. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** `text` with every e-mail address, card number and phone number replaced by `[email]`, `[card]`, `[phone]`. */
export function maskPii(text: string): string {
  // An address has an `@`: most turns have none, and the address pattern is the costly one to run over them.
  return (text.includes('@') ? text.replace(EMAIL, '[email]') : text).replace(DIGIT_RUN, (run) => {
    const digits = digitsOf(run);
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) return '[card]';
    if (digits.length >= 7 && digits.length <= 15) return '[phone]';
    return run;
  });
}
