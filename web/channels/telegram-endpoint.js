// Where the Telegram Bot API is: one constant, in a module of its own. No setting, no URL
// parameter and no stored value changes it (a bot token must never be sent anywhere else);
// the browser tests point their private copy of the app at a local fake by rewriting this line.
export const TELEGRAM_API = 'https://api.telegram.org';
