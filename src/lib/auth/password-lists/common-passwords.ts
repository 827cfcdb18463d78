/**
 * Passwords people pick most often (public top lists of leaked-password corpora), lower-case. A
 * candidate is refused when it equals one of these, ignoring case, or is one of these followed by
 * digits/punctuation only (e.g. "password2024!"). Bundled so the check works offline.
 */
export const COMMON_PASSWORDS: readonly string[] = [
  '123456', '123456789', '12345678', 'password', 'qwerty', '12345', 'qwerty123', '1q2w3e', '1234567', '111111',
  '1234567890', '123123', 'abc123', '1234', 'password1', 'iloveyou', '1q2w3e4r', '000000', 'qwertyuiop', '123321',
  'dragon', 'monkey', 'letmein', 'baseball', 'football', 'shadow', 'master', 'superman', 'michael', 'sunshine',
  'princess', 'welcome', 'admin', 'administrator', 'login', 'passw0rd', 'p@ssw0rd', 'p@ssword', 'trustno1', 'starwars',
  'whatever', 'freedom', 'hello', 'charlie', 'donald', 'batman', 'zaq1zaq1', 'qazwsx', 'password123', 'aa123456',
  'access', 'flower', 'hottie', 'loveme', 'mustang', 'jennifer', 'jordan', 'hunter', 'buster', 'soccer',
  'harley', 'ranger', 'thomas', 'tigger', 'robert', 'daniel', 'andrew', 'joshua', 'jessica', 'pepper',
  'ginger', 'cookie', 'summer', 'winter', 'spring', 'autumn', 'secret', 'changeme', 'default', 'guest',
  'test', 'test123', 'testing', 'root', 'toor', 'pass', 'pass123', 'passpass', 'azerty', 'azertyuiop',
  'motdepasse', 'soleil', 'bonjour', 'doudou', 'chouchou', 'loulou', 'marseille', 'nicolas', 'julien', 'camille',
  'qwertz', 'hallo', 'passwort', 'schatz', 'killer', 'computer', 'internet', 'samsung', 'google', 'apple',
  'matrix', 'ncc1701', 'zxcvbnm', 'asdfgh', 'asdfghjkl', 'qweasd', 'qweasdzxc', '1qaz2wsx', '1qazxsw2', 'q1w2e3r4',
  '654321', '666666', '696969', '7777777', '888888', '987654321', '121212', '112233', '159753', '147258369',
  'lovely', 'love', 'iloveu', 'babygirl', 'angel', 'anthony', 'ashley', 'bailey', 'banana', 'chocolate',
  'liverpool', 'arsenal', 'chelsea', 'yankees', 'lakers', 'cowboys', 'eagles', 'dolphins', 'rangers', 'tennis',
  'purple', 'orange', 'yellow', 'silver', 'golden', 'diamond', 'money', 'business', 'company', 'office',
  'welcome1', 'welcome123', 'letmein1', 'abcd1234', 'abcdef', 'abcdefg', 'abc12345', 'a1b2c3', 'a1b2c3d4', 'qwe123',
  'lender', 'lending', 'loan', 'loans', 'credit', 'bank', 'banking', 'finance', 'customer', 'backoffice',
  'correcthorsebatterystaple', 'password!', 'passwordpassword', 'qwertyqwerty', 'adminadmin', 'administrator1', 'mypassword', 'newpassword', 'oldpassword', 'temppassword',
];
