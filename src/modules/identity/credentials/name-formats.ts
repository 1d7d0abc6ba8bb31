import { FormatRegistry } from "@sinclair/typebox";
import { t } from "elysia";
import {
  EMAIL_MAX_LENGTH,
  EMAIL_RULE,
  isEmailAddress,
  isLoginName,
  isUsername,
  USERNAME_MAX_LENGTH,
  USERNAME_RULE,
} from "./names";

/**
 * Account-name formats, checked by functions (TypeBox compiles a schema `pattern` without the `u`
 * flag, so Unicode rules cannot be patterns). The names are our own: @elysiajs/openapi replaces the
 * standard ones (`email`, …) with checkers of its own.
 */
FormatRegistry.Set("username", isUsername);
FormatRegistry.Set("email-address", isEmailAddress);
FormatRegistry.Set("login-name", isLoginName);

export const Username = t.String({
  minLength: 1,
  maxLength: USERNAME_MAX_LENGTH,
  format: "username",
  errorMessage: USERNAME_RULE,
  description: "printable Unicode; no '@', control or invisible characters, no surrounding spaces",
});
export const EmailAddress = t.String({
  maxLength: EMAIL_MAX_LENGTH,
  format: "email-address",
  errorMessage: EMAIL_RULE,
});
export const LoginName = t.String({
  minLength: 1,
  maxLength: EMAIL_MAX_LENGTH,
  format: "login-name",
  errorMessage: "enter your username or e-mail address",
});
