import type { MailMessage, MailTransport } from '@reelsmith/kit';
import type { Mailer } from '../domain/identity.service.js';

type Message = MailMessage & { html: string };

const verificationMessage = (to: string, link: string, code: string): Message => ({
  to,
  subject: 'Verify your Reelsmith email',
  text: `Welcome to Reelsmith!\n\nYour verification code is ${code}\n\nOr open this link to verify your email:\n${link}\n\nThe code and the link work once and expire in 24 hours. If you did not sign up, ignore this message.\n`,
  html: `<p>Welcome to Reelsmith!</p><p>Your verification code is <strong style="font-size:20px;letter-spacing:3px">${code}</strong></p><p>Or <a href="${link}">verify your email</a>.</p><p>The code and the link work once and expire in 24 hours. If you did not sign up, ignore this message.</p>`,
});

const alreadyMessage = (to: string, url: string): Message => ({
  to,
  subject: 'Your Reelsmith account',
  text: `Someone tried to sign up with this email, but it already has a Reelsmith account.\nSign in at ${url}\nIf it was not you, you can ignore this message.\n`,
  html: `<p>Someone tried to sign up with this email, but it already has a Reelsmith account.</p><p><a href="${url}">Sign in</a>. If it was not you, you can ignore this message.</p>`,
});

const resetMessage = (to: string, link: string): Message => ({
  to,
  subject: 'Reset your Reelsmith password',
  text: `Someone asked to reset the password of your Reelsmith account.\n\nOpen this link to choose a new password:\n${link}\n\nThe link works once and expires in 1 hour. Every signed-in device will be signed out. If it was not you, ignore this message: your password stays as it is.\n`,
  html: `<p>Someone asked to reset the password of your Reelsmith account.</p><p><a href="${link}">Choose a new password</a></p><p>The link works once and expires in 1 hour. Every signed-in device will be signed out. If it was not you, ignore this message: your password stays as it is.</p>`,
});

const changedMessage = (to: string): Message => ({
  to,
  subject: 'Your Reelsmith password was changed',
  text: 'The password of your Reelsmith account was just changed, and your other devices were signed out. If it was not you, reset your password with "Forgot password?" in the sign-in dialog.\n',
  html: '<p>The password of your Reelsmith account was just changed, and your other devices were signed out.</p><p>If it was not you, reset your password with "Forgot password?" in the sign-in dialog.</p>',
});

const deletedMessage = (to: string): Message => ({
  to,
  subject: 'Your Reelsmith account was deleted',
  text: 'Your Reelsmith account was deleted, with your uploads and reels. Purchase records are kept without your name, as the law requires. Thank you for using Reelsmith.\n',
  html: '<p>Your Reelsmith account was deleted, with your uploads and reels. Purchase records are kept without your name, as the law requires.</p><p>Thank you for using Reelsmith.</p>',
});

/** Identity's messages, sent through the kit's transport (SMTP, or .eml files in DATA_DIR/mail). */
export function createMailer(mail: MailTransport): Mailer {
  const send = (m: Message) => mail.send(m);
  return {
    sendVerification: (to, link, code) => send(verificationMessage(to, link, code)),
    sendAlreadyRegistered: (to, url) => send(alreadyMessage(to, url)),
    sendPasswordReset: (to, link) => send(resetMessage(to, link)),
    sendPasswordChanged: (to) => send(changedMessage(to)),
    sendAccountDeleted: (to) => send(deletedMessage(to)),
  };
}
