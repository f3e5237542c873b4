/** Forgotten and changed passwords (pages/Passwords.tsx, components/ChangePassword.tsx). */
export const ptBR = {
  forgotLink: 'Esqueci minha senha',
  forgotTitle: 'Redefinir a senha',
  forgotIntro: 'Informe o e-mail da sua conta: enviaremos um link para você escolher uma nova senha.',
  forgotSend: 'Enviar link',
  forgotSent:
    'Se houver uma conta com {email}, enviamos um link para ela. Ele vale por 60 minutos e funciona uma vez; confira também a caixa de spam.',
  backToSignIn: 'Voltar para entrar',
  resetTitle: 'Escolha uma nova senha',
  resetIntro:
    'Ao salvar, você entra com a nova senha e as sessões abertas em outros aparelhos são encerradas.',
  resetNoCode: 'Este link está incompleto. Peça um novo link de redefinição.',
  newPassword: 'Nova senha',
  newPasswordHint: 'De 8 a 200 caracteres.',
  confirmPassword: 'Repita a nova senha',
  mismatch: 'As duas senhas não são iguais.',
  resetSave: 'Salvar e entrar',
  resetDone: 'Senha redefinida.',
  askAgain: 'Pedir um novo link',
  codeRefused: 'Este link já foi usado, expirou ou foi substituído por um mais novo. Peça um novo link.',
  currentWrong: 'A senha atual não confere.',
  changeTitle: 'Senha',
  changeIntro:
    'Ao trocar, as sessões abertas em outros aparelhos são encerradas; os tokens de API continuam valendo.',
  currentPassword: 'Senha atual',
  changeSave: 'Trocar senha',
  changed: 'Senha trocada.',
};

export const en: typeof ptBR = {
  forgotLink: 'Forgot your password?',
  forgotTitle: 'Reset your password',
  forgotIntro: "Enter your account's e-mail: we will send you a link to choose a new password.",
  forgotSend: 'Send link',
  forgotSent:
    'If there is an account with {email}, we sent it a link. It is valid for 60 minutes and works once; check your spam folder too.',
  backToSignIn: 'Back to sign in',
  resetTitle: 'Choose a new password',
  resetIntro:
    'When you save, you are signed in with the new password and the sessions open on other devices end.',
  resetNoCode: 'This link is incomplete. Ask for a new reset link.',
  newPassword: 'New password',
  newPasswordHint: '8 to 200 characters.',
  confirmPassword: 'Repeat the new password',
  mismatch: 'The two passwords are not the same.',
  resetSave: 'Save and sign in',
  resetDone: 'Password reset.',
  askAgain: 'Ask for a new link',
  codeRefused: 'This link was already used, has expired or was replaced by a newer one. Ask for a new link.',
  currentWrong: 'The current password is not right.',
  changeTitle: 'Password',
  changeIntro: 'Changing it ends the sessions open on other devices; API tokens keep working.',
  currentPassword: 'Current password',
  changeSave: 'Change password',
  changed: 'Password changed.',
};
