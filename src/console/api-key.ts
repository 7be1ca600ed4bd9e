// The API key lives in this tab's sessionStorage only: closing the tab forgets it.
const KEY = 'gateway.apiKey';

export const storedApiKey = () => sessionStorage.getItem(KEY);
export const storeApiKey = (key: string) => sessionStorage.setItem(KEY, key);
export const forgetApiKey = () => sessionStorage.removeItem(KEY);
